/*
 * pperf report --html: draws the page from its data, the JSON object in #pperf-data written by
 * cmd/report_html.c (inlined into the page there). The profile comes aggregated: a stack tree
 * (nodes: parent, frame) and, per time slice, the self weight of every node sampled in it, of
 * each kind (CPU ns, wall ns, each channel as a whole number). A time range sums its slices;
 * everything shown (flame graph, table, totals) is computed from that sum.
 */
(function () {
	'use strict';
	var started = performance.now();
	var D = JSON.parse(document.getElementById('pperf-data').textContent);
	var NW = D.weights.length;
	var NN = D.nodes.length / 2 + 1;
	var ROW = 17;		/* px per flame graph row (.fr's height) */
	var MIN_PX = 0.5;	/* narrower frames are not drawn */
	var MAX_FRAMES = 30000;	/* DOM frames drawn at most */
	var MAX_ROWS = 500;	/* table rows shown */

	/* The tree: parent, frame and depth of every node; node 0 is the root. */
	var parent = new Int32Array(NN), frame = new Int32Array(NN), depth = new Int32Array(NN);
	parent[0] = -1;
	frame[0] = -1;
	for (var i = 1; i < NN; i++) {
		parent[i] = D.nodes[2 * i - 2];
		frame[i] = D.nodes[2 * i - 1];
		depth[i] = depth[parent[i]] + 1;
	}
	function nameOf(n) { return n ? D.frames[frame[n]][0] : 'all'; }
	function dsoOf(n) { return n ? D.frames[frame[n]][1] : ''; }
	function base(path) { var k = path.lastIndexOf('/'); return k < 0 ? path : path.slice(k + 1); }

	/* Children of each node, by name (as flame graphs order them): kids[kidStart[n] ..). */
	var kidStart = new Int32Array(NN + 1), kids = new Int32Array(Math.max(NN - 1, 1));
	for (i = 1; i < NN; i++)
		kidStart[parent[i] + 1]++;
	for (i = 0; i < NN; i++)
		kidStart[i + 1] += kidStart[i];
	(function () {
		var fill = kidStart.slice(0, NN);
		for (var n = 1; n < NN; n++)
			kids[fill[parent[n]]++] = n;
		for (var p = 0; p < NN; p++) {
			var a = kidStart[p], b = kidStart[p + 1];
			if (b - a > 1) {
				var sub = Array.prototype.slice.call(kids, a, b);
				sub.sort(function (x, y) {
					var nx = nameOf(x), ny = nameOf(y);
					return nx < ny ? -1 : nx > ny ? 1 : x - y;
				});
				for (var k = 0; k < sub.length; k++)
					kids[a + k] = sub[k];
			}
		}
	})();

	/*
	 * outer[n]: 1 if an ancestor of n is the same function, so that a function's total counts
	 * each sample once however deep its recursion (its outermost nodes only).
	 */
	var outer = new Uint8Array(NN);
	(function () {
		var onPath = new Int32Array(D.frames.length), stack = [0];
		while (stack.length) {
			var n = stack.pop();
			if (n < 0) {
				onPath[frame[-n]]--;
				continue;
			}
			if (n) {
				outer[n] = onPath[frame[n]] > 0 ? 1 : 0;
				onPath[frame[n]]++;
				stack.push(-n);
			}
			for (var k = kidStart[n + 1] - 1; k >= kidStart[n]; k--)
				stack.push(kids[k]);
		}
	})();

	var st = { w: D.initial, s0: 0, s1: D.slices, zoom: 0, query: '', sort: 'total', up: false };
	var self = new Float64Array(NN * NW), total = new Float64Array(NN * NW);
	var whole = new Float64Array(NW); /* the whole run's totals */

	/* Sum the slices of the range into self, then totals up the tree (parents come first). */
	function sumRange() {
		self.fill(0);
		for (var s = st.s0; s < st.s1; s++) {
			var a = D.data[s];
			for (var k = 0; k < a.length; k += NW + 1) {
				var at = a[k] * NW;
				for (var w = 0; w < NW; w++)
					self[at + w] += a[k + 1 + w];
			}
		}
		total.set(self);
		for (var n = NN - 1; n > 0; n--) {
			var p = parent[n] * NW, c = n * NW;
			for (var w2 = 0; w2 < NW; w2++)
				total[p + w2] += total[c + w2];
		}
	}

	/* Numbers as people read them. */
	function fmtTime(ns) {
		var a = Math.abs(ns);
		if (a >= 1e9) return (ns / 1e9).toFixed(3) + ' s';
		if (a >= 1e6) return (ns / 1e6).toFixed(3) + ' ms';
		if (a >= 1e3) return (ns / 1e3).toFixed(1) + ' \u00b5s';
		return ns.toFixed(0) + ' ns';
	}
	function fmtNum(v) {
		if (v === 0) return '0';
		var a = Math.abs(v);
		return a >= 1e5 || a < 1e-3 ? v.toExponential(3) : v.toPrecision(4);
	}
	function fmt(w, v) {
		var W = D.weights[w];
		return W.time ? fmtTime(v) : fmtNum(v / W.div) + ' ' + W.shown;
	}
	function pct(part, whole) { return whole > 0 ? (100 * part / whole).toFixed(2) + '%' : '-'; }
	function el(tag, cls, text) {
		var e = document.createElement(tag);
		if (cls) e.className = cls;
		if (text !== undefined) e.textContent = text;
		return e;
	}

	/* Colours: warm for the program's functions, cooler for libraries, grey for the unknown. */
	function hash(s) {
		var h = 2166136261;
		for (var k = 0; k < s.length; k++)
			h = Math.imul(h ^ s.charCodeAt(k), 16777619);
		return h >>> 0;
	}
	var colourCache = {};
	function colour(n) {
		var f = n ? frame[n] : -1;
		if (colourCache[f]) return colourCache[f];
		var name = nameOf(n), dso = base(dsoOf(n)), h = hash(name), c;
		if (!n) c = 'hsl(0,0%,80%)';
		else if (name.charAt(0) === '[') c = 'hsl(0,0%,' + (70 + h % 12) + '%)';
		else if (/^(lib|ld-)/.test(dso)) c = 'hsl(' + (170 + h % 40) + ',45%,' + (60 + (h >> 8) % 15) + '%)';
		else c = 'hsl(' + (h % 55) + ',' + (75 + (h >> 8) % 20) + '%,' + (55 + (h >> 16) % 15) + '%)';
		colourCache[f] = c;
		return c;
	}

	function matches(n) {
		return st.query !== '' && n > 0 && nameOf(n).toLowerCase().indexOf(st.query) >= 0;
	}

	/* --- the page's header --- */
	(function () {
		var m = document.getElementById('meta');
		function item(label, value) {
			if (!value) return;
			var s = el('span');
			s.appendChild(el('b', '', label + ': '));
			s.appendChild(document.createTextNode(value));
			m.appendChild(s);
		}
		item('command', D.command);
		item('profile', D.input);
		item('host', D.host);
		item('recorded', D.date);
		item('thread-samples', String(D.thread_samples));
		item('filters', D.filters);
		if (D.cut_samples)
			item('note', D.cut_samples + ' stacks cut at the node limit');
		item('by', D.exporter);
	})();

	/* --- weight choice, search, buttons --- */
	var weightSel = document.getElementById('weight');
	D.weights.forEach(function (W, k) {
		var o = el('option', '', W.name + ' (' + W.shown + ')');
		o.value = String(k);
		weightSel.appendChild(o);
	});
	weightSel.value = String(st.w);
	weightSel.addEventListener('change', function () {
		st.w = +weightSel.value;
		st.zoom = 0;
		drawAll();
	});
	var search = document.getElementById('search');
	search.addEventListener('input', function () {
		st.query = search.value.trim().toLowerCase();
		drawFlame();
		drawTable();
	});
	document.getElementById('unzoom').addEventListener('click', function () {
		st.zoom = 0;
		drawFlame();
	});
	document.getElementById('whole').addEventListener('click', function () {
		setRange(0, D.slices);
	});
	document.addEventListener('keydown', function (e) {
		if (e.key === 'Escape') {
			st.zoom = 0;
			drawFlame();
		}
	});

	/* --- totals of the range --- */
	var totalsEl = document.getElementById('totals');
	function drawTotals() {
		var w = st.w, t = total[w], span = D.end_ns - D.begin_ns;
		var from = (D.begin_ns + span * st.s0 / D.slices) / 1e9;
		var to = (D.begin_ns + span * st.s1 / D.slices) / 1e9;
		var all = st.s0 === 0 && st.s1 === D.slices;
		totalsEl.textContent = D.weights[w].name + ': ' + fmt(w, t) + ' from ' +
			from.toFixed(3) + ' s to ' + to.toFixed(3) + ' s' +
			(all ? ' (the whole run)' : ' (selected: ' + pct(t, whole[w]) + ' of the whole run\'s)');
		totalsEl.dataset.total = String(t);
		totalsEl.dataset.range = st.s0 + ',' + st.s1;
	}

	/* --- the flame graph (an icicle: the outermost frames on top) --- */
	var flameEl = document.getElementById('flame'), tip = document.getElementById('tip');
	var matchEl = document.getElementById('match');
	function drawFlame() {
		var w = st.w, W = flameEl.clientWidth || 1000;
		var z = st.zoom;
		if (!(total[z * NW + w] > 0))
			z = st.zoom = 0;
		var zt = total[z * NW + w], frag = document.createDocumentFragment();
		var drawn = 0, maxDepth = 0;
		function add(n, x, frac, anc) {
			var d = el('div', 'fr' + (anc ? ' anc' : '') + (matches(n) ? ' hl' : ''), nameOf(n));
			d.style.left = (100 * x) + '%';
			d.style.width = (100 * frac) + '%';
			d.style.top = (depth[n] * ROW) + 'px';
			d.style.background = colour(n);
			d.dataset.node = String(n);
			frag.appendChild(d);
			drawn++;
			if (depth[n] > maxDepth) maxDepth = depth[n];
		}
		if (zt > 0) {
			for (var a = parent[z]; a >= 0; a = parent[a])
				add(a, 0, 1, true);
			add(z, 0, 1, false);
			var todo = [z, 0];
			while (todo.length && drawn < MAX_FRAMES) {
				var x = todo.pop(), n = todo.pop();
				for (var k = kidStart[n]; k < kidStart[n + 1]; k++) {
					var c = kids[k], f = total[c * NW + w] / zt;
					if (f * W >= MIN_PX) {
						add(c, x, f, false);
						todo.push(c, x);
					}
					if (f > 0) x += f;
				}
			}
		}
		flameEl.textContent = '';
		flameEl.appendChild(frag);
		flameEl.style.height = ((maxDepth + 1) * ROW + 2) + 'px';
		flameEl.dataset.zoom = String(z);
		flameEl.dataset.frames = String(drawn);

		/* the search's share: the matching nodes with no matching ancestor */
		if (st.query === '') {
			matchEl.textContent = '';
			delete matchEl.dataset.share;
			return;
		}
		var hit = 0, stack = [0, 0];
		while (stack.length) {
			var under = stack.pop(), m = stack.pop();
			var here = matches(m);
			if (here && !under) hit += total[m * NW + w];
			for (var j = kidStart[m]; j < kidStart[m + 1]; j++)
				stack.push(kids[j], under || here ? 1 : 0);
		}
		var share = total[w] > 0 ? 100 * hit / total[w] : 0;
		matchEl.textContent = 'matched: ' + share.toFixed(2) + '% of ' + D.weights[w].name;
		matchEl.dataset.share = share.toFixed(4);
	}
	flameEl.addEventListener('click', function (e) {
		var f = e.target.closest('.fr');
		if (!f) return;
		st.zoom = +f.dataset.node;
		drawFlame();
	});
	flameEl.addEventListener('mousemove', function (e) {
		var f = e.target.closest('.fr');
		if (!f) {
			tip.style.display = 'none';
			return;
		}
		var n = +f.dataset.node, w = st.w, v = total[n * NW + w];
		var text = nameOf(n) + (dsoOf(n) ? '\n' + dsoOf(n) : '') + '\n' + fmt(w, v) + ', ' +
			pct(v, total[w]) + ' of all' + (st.zoom ? ', ' + pct(v, total[st.zoom * NW + w]) +
			' of the zoomed frame' : '') + '; self ' + fmt(w, self[n * NW + w]);
		tip.textContent = text;
		tip.style.display = 'block';
		tip.style.left = Math.min(e.clientX + 12, window.innerWidth - tip.offsetWidth - 4) + 'px';
		tip.style.top = (e.clientY + 14) + 'px';
	});
	flameEl.addEventListener('mouseleave', function () { tip.style.display = 'none'; });

	/* --- the table of functions --- */
	var tableEl = document.getElementById('functions'), noteEl = document.getElementById('table-note');
	var NF = D.frames.length;
	function columns() {
		var w = st.w, cols = [
			{ key: 'name', head: 'Function', cls: 'name' },
			{ key: 'dso', head: 'DSO', cls: 'dso' },
			{ key: 'self', head: 'Self %', cls: 'selfpct', w: w, pct: true },
			{ key: 'self', head: 'Self ' + D.weights[w].name, cls: 'self', w: w },
			{ key: 'total', head: 'Total %', cls: 'totalpct', w: w, pct: true, total: true },
			{ key: 'total', head: 'Total ' + D.weights[w].name, cls: 'total', w: w, total: true }
		];
		for (var k = 2; k < NW; k++) {
			cols.push({ key: 'c' + k, head: D.weights[k].name + ' (' + D.weights[k].shown + ')', cls: 'ch', w: k });
			cols.push({ key: 'c' + k, head: D.weights[k].name + ' %', cls: 'chpct', w: k, pct: true });
		}
		return cols;
	}
	function drawTable() {
		var w = st.w, fself = new Float64Array(NF * NW), ftotal = new Float64Array(NF * NW);
		for (var n = 1; n < NN; n++) {
			var f = frame[n] * NW, a = n * NW;
			for (var k = 0; k < NW; k++) {
				fself[f + k] += self[a + k];
				if (!outer[n]) ftotal[f + k] += total[a + k];
			}
		}
		var rows = [];
		for (var fr = 0; fr < NF; fr++) {
			var any = ftotal[fr * NW + w] > 0;
			for (var k2 = 2; k2 < NW && !any; k2++)
				any = fself[fr * NW + k2] !== 0;
			if (any) rows.push(fr);
		}
		var key = st.sort, sign = st.up ? -1 : 1;
		function val(r) {
			if (key === 'self') return fself[r * NW + w];
			if (key === 'total') return ftotal[r * NW + w];
			return fself[r * NW + (+key.slice(1))];
		}
		rows.sort(function (x, y) {
			if (key === 'name' || key === 'dso') {
				var a2 = key === 'dso' ? base(D.frames[x][1]) : D.frames[x][0];
				var b2 = key === 'dso' ? base(D.frames[y][1]) : D.frames[y][0];
				var c2 = a2 < b2 ? -1 : a2 > b2 ? 1 : x - y;
				return st.up ? -c2 : c2;
			}
			var d = val(y) - val(x);
			return d ? sign * d : x - y;
		});
		var cols = columns(), thead = el('thead'), htr = el('tr');
		cols.forEach(function (c) {
			var th = el('th', c.cls + (c.key === key ? ' sorted' + (st.up ? ' up' : '') : ''), c.head);
			th.dataset.key = c.key;
			htr.appendChild(th);
		});
		thead.appendChild(htr);
		var tbody = el('tbody');
		for (var r = 0; r < rows.length && r < MAX_ROWS; r++) {
			var fi = rows[r], tr = el('tr');
			tr.dataset.frame = String(fi);
			if (st.query !== '' && D.frames[fi][0].toLowerCase().indexOf(st.query) >= 0)
				tr.className = 'hl';
			cols.forEach(function (c) {
				var text;
				if (c.key === 'name') text = D.frames[fi][0];
				else if (c.key === 'dso') text = base(D.frames[fi][1]);
				else {
					var v = (c.total ? ftotal : fself)[fi * NW + c.w];
					text = c.pct ? pct(v, total[c.w]) : fmt(c.w, v);
				}
				var td = el('td', c.cls, text);
				if (c.key === 'name' || c.key === 'dso')
					td.title = c.key === 'name' ? D.frames[fi][0] : D.frames[fi][1];
				tr.appendChild(td);
			});
			tbody.appendChild(tr);
		}
		tableEl.textContent = '';
		tableEl.appendChild(thead);
		tableEl.appendChild(tbody);
		noteEl.textContent = rows.length + ' functions' +
			(rows.length > MAX_ROWS ? ', the first ' + MAX_ROWS + ' shown' : '') +
			'; totals count a function once per sample, however deep its recursion';
	}
	tableEl.addEventListener('click', function (e) {
		var th = e.target.closest('th');
		if (!th) return;
		if (st.sort === th.dataset.key) st.up = !st.up;
		else {
			st.sort = th.dataset.key;
			st.up = false;
		}
		drawTable();
	});

	/* --- the timeline: a track per thread (CPU use), one per channel (its rate) --- */
	var tl = document.getElementById('timeline');
	var labels = el('div', 'labels'), plot = el('div', 'plot'), sel = el('div');
	sel.id = 'sel';
	tl.appendChild(labels);
	tl.appendChild(plot);
	var tracks = [];
	var binNs = (D.end_ns - D.begin_ns) / D.bins;
	D.threads.forEach(function (t) {
		tracks.push({ name: t.name, values: t.cpu.map(function (v) { return v / binNs; }),
			      unit: 'CPUs', height: 16, colour: '#3f7fbf', fixedMax: 1 });
	});
	D.tracks.forEach(function (t) {
		tracks.push({ name: t.name + ' (' + t.unit + ')', values: t.values, unit: t.unit,
			      height: 34, colour: '#e08a1e' });
	});
	tracks.forEach(function (t) {
		var max = t.fixedMax || 0;
		t.values.forEach(function (v) { if (v > max) max = v; });
		t.max = max;
		var lab = el('div', 'label', t.name);
		lab.style.height = t.height + 'px';
		lab.title = t.name + ', at most ' + fmtNum(max) + ' ' + t.unit;
		labels.appendChild(lab);
		var box = el('div', 'track');
		box.style.height = t.height + 'px';
		t.canvas = el('canvas');
		box.appendChild(t.canvas);
		plot.appendChild(box);
	});
	var axis = el('div', 'axis');
	plot.appendChild(axis);
	labels.appendChild(el('div', 'label', 'seconds'));
	plot.appendChild(sel);
	plot.style.position = 'relative';
	(function () {
		for (var k = 0; k <= 4; k++)
			axis.appendChild(el('span', '', ((D.begin_ns + (D.end_ns - D.begin_ns) * k / 4) / 1e9).toFixed(3)));
	})();

	function drawTimeline() {
		var dpr = window.devicePixelRatio || 1, W = plot.clientWidth || 800;
		tracks.forEach(function (t) {
			var c = t.canvas, H = t.height;
			c.width = Math.max(1, Math.round(W * dpr));
			c.height = Math.round(H * dpr);
			var g = c.getContext('2d');
			g.setTransform(dpr, 0, 0, dpr, 0, 0);
			g.clearRect(0, 0, W, H);
			g.fillStyle = t.colour;
			var n = t.values.length;
			for (var b = 0; b < n; b++) {
				var v = t.values[b];
				if (!(v > 0) || !(t.max > 0)) continue;
				var h = Math.max(1, Math.min(1, v / t.max) * (H - 2));
				g.fillRect(b * W / n, H - h, Math.max(W / n, 1), h);
			}
		});
		drawSel();
	}
	function drawSel() {
		if (st.s0 === 0 && st.s1 === D.slices) {
			sel.style.display = 'none';
			return;
		}
		sel.style.display = 'block';
		sel.style.left = (100 * st.s0 / D.slices) + '%';
		sel.style.width = (100 * (st.s1 - st.s0) / D.slices) + '%';
	}
	function setRange(s0, s1) {
		st.s0 = s0;
		st.s1 = s1;
		sumRange();
		drawTotals();
		drawFlame();
		drawTable();
		drawSel();
	}
	/* Dragging selects whole slices; a click without a drag selects the whole run again. */
	var dragFrom = null;
	function xOf(e) {
		var r = plot.getBoundingClientRect();
		return Math.max(0, Math.min(1, (e.clientX - r.left) / Math.max(1, r.width)));
	}
	plot.addEventListener('mousedown', function (e) {
		if (e.button !== 0) return;
		dragFrom = xOf(e);
		e.preventDefault();
	});
	window.addEventListener('mousemove', function (e) {
		if (dragFrom === null) return;
		var x = xOf(e), a = Math.min(dragFrom, x), b = Math.max(dragFrom, x);
		sel.style.display = 'block';
		sel.style.left = (100 * a) + '%';
		sel.style.width = (100 * (b - a)) + '%';
	});
	window.addEventListener('mouseup', function (e) {
		if (dragFrom === null) return;
		var x = xOf(e), a = Math.min(dragFrom, x), b = Math.max(dragFrom, x);
		dragFrom = null;
		if ((b - a) * plot.clientWidth < 3) {
			setRange(0, D.slices);
			return;
		}
		var s0 = Math.floor(a * D.slices), s1 = Math.ceil(b * D.slices);
		s0 = Math.max(0, Math.min(D.slices - 1, s0));
		s1 = Math.max(s0 + 1, Math.min(D.slices, s1));
		setRange(s0, s1);
	});

	function drawAll() {
		drawTotals();
		drawFlame();
		drawTable();
	}
	var pending = false;
	window.addEventListener('resize', function () {
		if (pending) return;
		pending = true;
		requestAnimationFrame(function () {
			pending = false;
			drawTimeline();
			drawFlame();
		});
	});

	sumRange();
	for (var w0 = 0; w0 < NW; w0++)
		whole[w0] = total[w0];
	drawTimeline();
	drawAll();
	/* for the tests and the benchmark: the script's time, and when the page was drawn (ms
	 * since the navigation started) */
	window.pperfTiming = { script_ms: performance.now() - started, drawn_ms: performance.now() };
	document.documentElement.dataset.ready = '1';
})();
