#!/usr/bin/env python3
"""Checks what headless Chromium made of report.html (tests/report/chromium.sh).

check_page.py <screenshot.png> <dom.html> <chromium-stderr> <min-charts>
- the screenshot is a real PNG of the window's size, and not blank: many colours, much non-white;
- the page's self-check (written by its inline script into <pre id="klineage-selfcheck">) lists
  at least <min-charts> charts, each with a non-zero rendered size, and no page errors;
- Chromium logged no console message of the page (the page logs none; errors would show here).
Pure Python (zlib): no PIL needed.
"""
import re
import struct
import sys
import zlib


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def png_rows(path, max_rows):
    """The first max_rows rows of an 8-bit RGB/RGBA PNG, unfiltered, as (width, height, rows)."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail(path + " is not a PNG")
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    w, h, depth, ctype, _, _, interlace = ihdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        fail("unexpected PNG format: depth %d colour type %d interlace %d" % (depth, ctype, interlace))
    bpp = 3 if ctype == 2 else 4
    stride = w * bpp
    raw = zlib.decompressobj().decompress(idat, (stride + 1) * max_rows)
    rows, prev = [], bytearray(stride)
    for y in range(min(h, max_rows, len(raw) // (stride + 1))):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif f == 2:
            for i in range(stride):
                line[i] = (line[i] + prev[i]) & 255
        elif f == 3:
            for i in range(stride):
                line[i] = (line[i] + ((line[i - bpp] if i >= bpp else 0) + prev[i]) // 2) & 255
        elif f == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b, c = prev[i], (prev[i - bpp] if i >= bpp else 0)
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows


def main():
    png, dom_path, log_path, min_charts = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    w, h, bpp, rows = png_rows(png, 600)
    if (w, h) != (1280, 2000):
        fail("screenshot is %dx%d, not the 1280x2000 window" % (w, h))
    colours, non_white, total = set(), 0, 0
    for line in rows:
        for x in range(0, w * bpp, bpp * 2):
            px = bytes(line[x:x + 3])
            colours.add(px)
            total += 1
            non_white += px != b"\xff\xff\xff"
    print("screenshot %dx%d: %d colours, %.0f%% not white in the top %d rows" %
          (w, h, len(colours), 100.0 * non_white / total, len(rows)))
    if len(colours) < 50 or non_white < total * 0.05:
        fail("the screenshot looks blank")

    dom = open(dom_path, encoding="utf-8", errors="replace").read()
    m = re.search(r'<pre id="klineage-selfcheck"[^>]*>(.*?)</pre>', dom, re.S)
    if not m or "charts " not in m.group(1):
        fail("the page's self-check did not run (no chart list in the dumped DOM)")
    check = m.group(1)
    print(check)
    charts = re.findall(r"^chart (\S+) (\d+)x(\d+)$", check, re.M)
    if len(charts) < min_charts:
        fail("%d charts rendered, expected at least %d" % (len(charts), min_charts))
    for cid, cw, ch in charts:
        if int(cw) <= 0 or int(ch) <= 0:
            fail("chart %s rendered with size %sx%s" % (cid, cw, ch))
    if not re.search(r"^errors 0$", check, re.M):
        fail("the page reported errors")

    log = open(log_path, encoding="utf-8", errors="replace").read()
    console = [l for l in log.splitlines() if ":CONSOLE" in l]
    if console:
        fail("console messages:\n" + "\n".join(console))
    print("ok: %d charts rendered, no console errors" % len(charts))


main()
