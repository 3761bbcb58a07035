#!/usr/bin/env python3
"""Reads a flame graph of `pperf convert --to svg` as XML (xml.etree) and prints what it shows,
for tests/e2e/convert-svg.sh to check against pperf report:
    check-svg.py FILE.svg
Prints 'heading TEXT' (the line that says the weight and its total), 'width W' (the root frame's
width), then per function 'func NAME<TAB>SELF%<TAB>TITLE%' (SELF: the width of its frames not
covered by callees, TITLE: the shares their tooltips give, summed over the frames that are not
inside a frame of the same function), and 'frames N depth D'. Exits 1 with a message if the file
is not a well-formed SVG of frames: every frame a <g> with a <title> and a <rect>, each callee
inside its caller, no callees wider than their caller, shares in the tooltips as the widths
say."""
import sys
import xml.etree.ElementTree as ET

NS = '{http://www.w3.org/2000/svg}'


def fail(msg):
    print('check-svg: ' + msg, file=sys.stderr)
    sys.exit(1)


root = ET.parse(sys.argv[1]).getroot()
if root.tag != NS + 'svg':
    fail('the root element is %s, not svg' % root.tag)
texts = [t.text or '' for t in root.findall(NS + 'text')]
print('heading\t' + (texts[1] if len(texts) > 1 else ''))
frames = []
for g in root.findall(NS + 'g'):
    title, rect = g.find(NS + 'title'), g.find(NS + 'rect')
    if title is None or rect is None:
        fail('a frame without a title or a rect')
    name, _, share = title.text.rpartition('\n')
    name = name.rsplit(' (', 1)[0] if name.endswith(')') else name
    x, y, w = (float(rect.get(k)) for k in ('x', 'y', 'width'))
    frames.append({'name': name, 'x': x, 'y': y, 'w': w,
                   'share': float(share.split('%')[0]), 'kids': 0.0, 'parent': None})
if not frames:
    fail('no frames')
top = min(f['y'] for f in frames)
roots = [f for f in frames if f['y'] == top]
if len(roots) != 1:
    fail('%d frames on the top row' % len(roots))
whole = roots[0]['w']
print('width\t%.3f' % whole)
# each frame's caller: the frame one row up that holds its x
rows = {}
for f in frames:
    rows.setdefault(f['y'], []).append(f)
ys = sorted(rows)
for a, b in zip(ys, ys[1:]):
    if b - a != 16:
        fail('rows %g and %g are not 16 apart' % (a, b))
    for f in rows[b]:
        for p in rows[a]:
            if p['x'] - 0.002 <= f['x'] and f['x'] + f['w'] <= p['x'] + p['w'] + 0.01:
                f['parent'] = p
                p['kids'] += f['w']
                break
        else:
            fail('%s at x %g, row %g: in no frame above it' % (f['name'], f['x'], b))
for f in frames:
    if f['kids'] > f['w'] + 0.01:
        fail('%s: callees %g wide under %g' % (f['name'], f['kids'], f['w']))
    if abs(f['share'] - 100 * f['w'] / whole) > 0.001 + 0.002 * 100 / whole:
        fail('%s: its title says %g %%, its width %g of %g' % (f['name'], f['share'], f['w'], whole))
selfw, title = {}, {}
for f in frames:
    if f is roots[0]:
        continue
    selfw[f['name']] = selfw.get(f['name'], 0) + f['w'] - f['kids']
    p, inner = f['parent'], False
    while p is not None:
        inner = inner or p['name'] == f['name']
        p = p['parent']
    if not inner:
        title[f['name']] = title.get(f['name'], 0) + f['share']
for n in sorted(selfw):
    print('func\t%s\t%.4f\t%.4f' % (n, 100 * selfw[n] / whole, title[n]))
print('frames\t%d\tdepth\t%d' % (len(frames), len(ys) - 1))
