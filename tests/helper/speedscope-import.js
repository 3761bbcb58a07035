'use strict';
/*
 * Opens a file with speedscope's own importer, as its web app does when a file is dropped on
 * it, and prints what it made of it. The npm package ships the app as one bundle that exports
 * nothing: its import function (the one that picks a format by the file's name and content) is
 * found by its code and made reachable before the bundle would start the user interface, and
 * the bundle runs in a context whose browser objects do nothing.
 *   node speedscope-import.js SPEEDSCOPE_DIR FILE
 * A speedscope file (its "$schema") is also checked against the JSON schema the package ships
 * (dist/release/file-format-schema.json: the keywords it uses, of JSON Schema draft 7): the
 * importer takes some files the schema does not.
 * Prints "schema: valid" (or "schema: PATH: what is wrong" and exits 1) for those,
 * "format: WHAT speedscope said it imported", then per profile
 * "profile<TAB>NAME<TAB>UNIT<TAB>TOTAL WEIGHT" and per frame of it
 * "frame<TAB>PROFILE INDEX<TAB>NAME<TAB>SELF WEIGHT<TAB>TOTAL WEIGHT". Exit 1 if it did not
 * import, 2 if the importer was not found (another speedscope version).
 */
const fs = require('fs');
const path = require('path');
const vm = require('vm');

const [dir, file] = process.argv.slice(2);
if (!dir || !file) {
	console.error('usage: node speedscope-import.js SPEEDSCOPE_DIR FILE');
	process.exit(2);
}
const release = path.join(dir, 'dist', 'release');
const bundle = fs.readdirSync(release).find((f) => /^speedscope-.*\.js$/.test(f));
let src = fs.readFileSync(path.join(release, bundle), 'utf8');

/* The importer: `async function NAME(t){let e=await t.name(),n=await t.readAsArrayBuffer()` */
const importer = /async function ([\w$]+)\(\w+\)\{let \w+=await \w+\.name\(\),\w+=await \w+\.readAsArrayBuffer\(\)/.exec(src);
/* The app's start, the bundle's last statements: the version line, then the rendering. */
const start = src.lastIndexOf('console.log(`speedscope v');
if (!importer || start < 0) {
	console.error(`speedscope-import: no importer found in ${bundle} (not the version expected)`);
	process.exit(2);
}
src = src.slice(0, start) + `globalThis.pperfImport=${importer[1]};return;` + src.slice(start);

/* A browser object that accepts everything and does nothing. */
function inert() {
	const target = function () {};
	const p = new Proxy(target, {
		get: (t, key) => (key === Symbol.toPrimitive ? () => '' : key === 'then' ? undefined : p),
		apply: () => p,
		construct: () => p,
		set: () => true,
		has: () => true,
	});
	return p;
}

const said = [];
const quiet = {
	log: (...a) => said.push(a.join(' ')),
	warn: (...a) => said.push(a.join(' ')),
	error: (...a) => console.error(...a),
	info: () => {},
	debug: () => {},
	time: () => {},
	timeEnd: () => {},
};
const ctx = {
	console: quiet, TextDecoder, TextEncoder, URL, URLSearchParams, setTimeout, clearTimeout,
	window: inert(), document: inert(), navigator: inert(), localStorage: inert(), self: inert(),
	location: { hash: '', search: '', href: 'file:///' },
	requestAnimationFrame: () => 0,
	matchMedia: () => ({ matches: false, addEventListener() {}, addListener() {} }),
};
ctx.globalThis = ctx;
vm.createContext(ctx);
vm.runInContext(src, ctx, { filename: bundle });

/* The errors of value v against schema node s (root: the whole schema, for $ref). */
function validate(v, s, root, at, errors) {
	if (s.$ref) {
		const name = decodeURIComponent(s.$ref.replace(/^#\/definitions\//, ''));
		return validate(v, root.definitions[name], root, at, errors);
	}
	const type = Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v;
	if (s.type && s.type !== type && !(s.type === 'integer' && Number.isInteger(v)))
		errors.push(`${at}: ${type}, not ${s.type}`);
	if ('const' in s && v !== s.const)
		errors.push(`${at}: ${JSON.stringify(v)}, not ${JSON.stringify(s.const)}`);
	if (s.enum && !s.enum.includes(v))
		errors.push(`${at}: ${JSON.stringify(v)}, none of ${s.enum.join(', ')}`);
	if (s.anyOf && !s.anyOf.some((alt) => validate(v, alt, root, at, []).length === 0))
		errors.push(`${at}: matches none of its ${s.anyOf.length} alternatives`);
	if (type === 'object') {
		for (const k of s.required || [])
			if (!(k in v))
				errors.push(`${at}: no ${k}`);
		for (const [k, sub] of Object.entries(s.properties || {}))
			if (k in v)
				validate(v[k], sub, root, `${at}.${k}`, errors);
	}
	if (type === 'array' && s.items)
		v.forEach((x, i) => validate(x, s.items, root, `${at}[${i}]`, errors));
	return errors;
}

/* The file as the app's file source gives it. */
const data = fs.readFileSync(file);
const text = data.toString('utf8');
const source = {
	name: async () => path.basename(file),
	readAsArrayBuffer: async () => data.buffer.slice(data.byteOffset, data.byteOffset + data.length),
	readAsText: async () => ({
		parseAsJSON: () => JSON.parse(text),
		firstChunk: () => text.slice(0, 4096),
		splitLines: function* () {
			yield* text.split('\n');
		},
	}),
};

let json;
try {
	json = JSON.parse(text);
} catch (e) {
	json = undefined;
}
if (json && json.$schema === 'https://www.speedscope.app/file-format-schema.json') {
	const schema = JSON.parse(fs.readFileSync(path.join(release, 'file-format-schema.json')));
	const errors = validate(json, schema, schema, '$', []);
	if (errors.length) {
		console.log(`schema: ${errors.slice(0, 5).join('; ')}`);
		process.exit(1);
	}
	console.log('schema: valid');
}

ctx.pperfImport(source).then(
	(group) => {
		const format = said.find((s) => s.startsWith('Importing as '));
		console.log(`format: ${format ? format.slice(13) : '?'}`);
		if (!group) {
			console.error('speedscope-import: the importer did not recognize the file');
			process.exit(1);
		}
		group.profiles.forEach((p, i) => {
			console.log(['profile', p.getName(), p.getWeightUnit(), p.getTotalWeight()].join('\t'));
			p.forEachFrame((f) =>
				console.log(['frame', i, f.name, f.getSelfWeight(), f.getTotalWeight()].join('\t')));
		});
	},
	(e) => {
		console.error(`speedscope-import: import failed: ${e && e.stack ? e.stack : e}`);
		process.exit(1);
	},
);
