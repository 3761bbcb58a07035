'use strict';
/*
 * Opens a page of `pperf report --html` in a real browser (Debian's chromium, headless, driven
 * by playwright-core from .deps/) and does what a user does with it, printing what the page
 * then shows, for tests/e2e/report-html.sh to check against pperf report:
 *   node html-check.js PLAYWRIGHT_DIR CHROMIUM PAGE.html [--zoom NAME] [--search TEXT] [--drag A,B]
 *                      [--png FILE]  (FILE: a screenshot of the whole page as first drawn)
 * Prints, one fact a line (tab-separated):
 *   ready <ms the script took>
 *   timing <first contentful paint> <drawn: the script done> <the load event>  (ms since the
 *          navigation started)
 *   title <the page's title>
 *   weights <names, comma-separated>
 *   total <the flame graph's total in the weight shown> <data-range>
 *   row <function> <self %> <total %> <dso>           (the table, as shown)
 *   pixels <share of non-background pixels> <colour buckets> <warm share>   (a screenshot)
 *   zoom <name> <its width / the flame graph's width> <frames drawn>
 *   search <text> <highlighted frames> <of them not matching> <matched share %>
 *   range <data-range> <total> <rows in the table>  (after dragging over A..B of the timeline)
 *   weight <index> <name> <total>                 (each weight chosen in turn)
 *   injected <what a name or the title ran: none, or what>
 * Exit 1 on a console error, an uncaught exception, a dialog or a failed step.
 */
const path = require('path');

const [pwDir, chromium, page_] = process.argv.slice(2, 5);
const opts = {};
for (let i = 5; i < process.argv.length; i += 2)
	opts[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
if (!pwDir || !chromium || !page_) {
	console.error('usage: node html-check.js PLAYWRIGHT_DIR CHROMIUM PAGE.html [options]');
	process.exit(2);
}
const { chromium: browserType } = require(path.resolve(pwDir));
const problems = [];
const TIMEOUT = 180000; /* generous: the suite runs tests in parallel on a loaded machine */

function out(...f) {
	console.log(f.join('\t'));
}

(async () => {
	const args = ['--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'];
	/* chromium refuses to run as root inside its sandbox */
	if (process.getuid && process.getuid() === 0)
		args.push('--no-sandbox');
	const browser = await browserType.launch({ executablePath: chromium, headless: true, args,
						   timeout: TIMEOUT });
	try {
		const ctx = await browser.newContext({ viewport: { width: 1200, height: 900 } });
		const page = await ctx.newPage();
		page.setDefaultTimeout(TIMEOUT);
		page.on('console', (m) => { if (m.type() === 'error') problems.push('console: ' + m.text()); });
		page.on('pageerror', (e) => problems.push('page error: ' + e.message));
		page.on('dialog', async (d) => { problems.push('dialog: ' + d.message()); await d.dismiss(); });
		/* no network: anything the page would fetch is a failure */
		await page.route(/^(?!file:|data:|about:)/, (r) => {
			problems.push('request: ' + r.request().url());
			r.abort();
		});
		await page.goto('file://' + path.resolve(page_), { timeout: TIMEOUT });
		await page.waitForSelector('html[data-ready="1"]', { timeout: TIMEOUT });
		out('ready', (await page.evaluate(() => window.pperfTiming.script_ms)).toFixed(1));
		/* the first paint after the script: the frame that shows what it drew */
		await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))));
		const tm = await page.evaluate(() => {
			const p = performance.getEntriesByName('first-contentful-paint')[0];
			const n = performance.getEntriesByType('navigation')[0];
			return [p ? p.startTime : -1, window.pperfTiming.drawn_ms, n ? n.loadEventEnd : -1];
		});
		out('timing', ...tm.map((x) => x.toFixed(1)));
		out('title', await page.title());
		out('weights', (await page.$$eval('#weight option', (o) => o.map((x) => x.textContent))).join(','));
		out('injected', await page.evaluate(() => (window.pwned !== undefined ? 'pwned=' + window.pwned :
			document.querySelectorAll('img, script:not([id]):not([src])').length > 1 ?
			'elements' : 'none')));

		const total = async () => page.$eval('#totals', (e) => [e.dataset.total, e.dataset.range]);
		out('total', ...(await total()));
		const rows = async () => page.$$eval('#functions tbody tr', (trs) => trs.map((tr) => [
			tr.querySelector('td.name').textContent, tr.querySelector('td.selfpct').textContent,
			tr.querySelector('td.totalpct').textContent, tr.querySelector('td.dso').textContent]));
		for (const r of await rows())
			out('row', ...r);

		/* a screenshot of the flame graph, its pixels read back by the browser itself */
		const png = await page.locator('#flame').screenshot({ timeout: TIMEOUT });
		const px = await page.evaluate(async (b64) => {
			const img = new Image();
			img.src = 'data:image/png;base64,' + b64;
			await img.decode();
			const c = document.createElement('canvas');
			c.width = img.width;
			c.height = img.height;
			const g = c.getContext('2d');
			g.drawImage(img, 0, 0);
			const d = g.getImageData(0, 0, c.width, c.height).data;
			let fg = 0, warm = 0;
			const buckets = new Set();
			for (let i = 0; i < d.length; i += 4) {
				const r = d[i], gr = d[i + 1], bl = d[i + 2];
				if (r > 240 && gr > 240 && bl > 240) continue; /* background, borders */
				fg++;
				if (r > 180 && r > bl + 60) warm++;
				buckets.add((r >> 5) + ',' + (gr >> 5) + ',' + (bl >> 5));
			}
			const n = d.length / 4;
			return [fg / n, buckets.size, warm / n];
		}, png.toString('base64'));
		out('pixels', px[0].toFixed(3), px[1], px[2].toFixed(3));
		if (opts.png)
			await page.screenshot({ path: opts.png, fullPage: true, timeout: TIMEOUT });

		if (opts.zoom) {
			/* the widest frame of that name, clicked in its middle */
			const node = await page.$$eval('#flame .fr', (fs, name) => {
				let best = null;
				for (const f of fs)
					if (f.textContent === name && (!best || f.offsetWidth > best.offsetWidth))
						best = f;
				return best ? best.dataset.node : null;
			}, opts.zoom);
			if (node === null)
				throw new Error('no frame named ' + opts.zoom);
			await page.click(`#flame .fr[data-node="${node}"]`);
			const z = await page.evaluate((n) => {
				const f = document.querySelector(`#flame .fr[data-node="${n}"]`);
				const box = document.getElementById('flame');
				return [f.getBoundingClientRect().width / box.clientWidth, box.dataset.frames,
					box.dataset.zoom];
			}, node);
			if (z[2] !== node)
				throw new Error('the flame graph zoomed on node ' + z[2] + ', not ' + node);
			out('zoom', opts.zoom, z[0].toFixed(4), z[1]);
			await page.click('#unzoom');
		}
		if (opts.search) {
			await page.fill('#search', opts.search);
			const s = await page.evaluate((q) => {
				const hl = [...document.querySelectorAll('#flame .fr.hl')];
				return [hl.length, hl.filter((f) => !f.textContent.toLowerCase().includes(q.toLowerCase())).length,
					document.getElementById('match').dataset.share];
			}, opts.search);
			out('search', opts.search, ...s);
			await page.fill('#search', '');
		}
		if (opts.drag) {
			const [a, b] = opts.drag.split(',').map(Number);
			const box = await page.locator('#timeline .plot .track').first().boundingBox();
			const y = box.y + box.height / 2;
			await page.mouse.move(box.x + a * box.width, y);
			await page.mouse.down();
			await page.mouse.move(box.x + ((a + b) / 2) * box.width, y, { steps: 4 });
			await page.mouse.move(box.x + b * box.width, y, { steps: 4 });
			await page.mouse.up();
			const t = await total();
			out('range', t[1], t[0], (await rows()).length);
			await page.click('#whole');
		}
		const nw = await page.$$eval('#weight option', (o) => o.length);
		for (let k = 0; k < nw; k++) {
			await page.selectOption('#weight', String(k));
			out('weight', k, await page.$eval('#weight', (s) => s.options[s.selectedIndex].textContent),
				(await total())[0]);
		}
		await ctx.close();
	} finally {
		await browser.close();
	}
	for (const p of problems)
		console.error(p);
	process.exit(problems.length ? 1 : 0);
})().catch((e) => {
	for (const p of problems)
		console.error(p);
	console.error('html-check: ' + (e && e.stack ? e.stack : e));
	process.exit(1);
});
