#!/usr/bin/env python3
"""The hand-drawn figures' labels lie inside their figures: every <text> of each SVG given,
measured in DejaVu Sans (Mono for monospace, Bold for bold) -- the font a browser on Debian
draws "sans-serif" with -- must end inside the viewBox. One line per label that does not;
exit 1 when any, 77 when the fonts are not installed.
   figure_text.py SVG...   (the gnuplot figures, h200_*.svg, are gnuplot's to lay out)"""
import struct
import sys
import xml.etree.ElementTree as ET

FONTS = "/usr/share/fonts/truetype/dejavu/"
SVG = "{http://www.w3.org/2000/svg}"


class Font:
    """A TrueType font's advance widths, by character, in ems."""

    def __init__(self, path):
        data = open(path, "rb").read()
        n = struct.unpack(">H", data[4:6])[0]
        tables = {}
        for i in range(n):
            tag, _, off, length = struct.unpack(">4sIII", data[12 + 16 * i:28 + 16 * i])
            tables[tag.decode()] = off
        self.em = struct.unpack(">H", data[tables["head"] + 18:tables["head"] + 20])[0]
        n_metrics = struct.unpack(">H", data[tables["hhea"] + 34:tables["hhea"] + 36])[0]
        hmtx = tables["hmtx"]
        self.adv = [struct.unpack(">H", data[hmtx + 4 * i:hmtx + 4 * i + 2])[0]
                    for i in range(n_metrics)]
        self.glyph = self._cmap(data, tables["cmap"])

    @staticmethod
    def _cmap(data, cmap):
        n = struct.unpack(">H", data[cmap + 2:cmap + 4])[0]
        for i in range(n):
            pid, eid, off = struct.unpack(">HHI", data[cmap + 4 + 8 * i:cmap + 12 + 8 * i])
            sub = cmap + off
            if pid == 3 and eid == 1 and struct.unpack(">H", data[sub:sub + 2])[0] == 4:
                segs = struct.unpack(">H", data[sub + 6:sub + 8])[0] // 2
                ends = [struct.unpack(">H", data[sub + 14 + 2 * j:sub + 16 + 2 * j])[0] for j in range(segs)]
                base = sub + 16 + 2 * segs
                starts = [struct.unpack(">H", data[base + 2 * j:base + 2 + 2 * j])[0] for j in range(segs)]
                deltas = [struct.unpack(">h", data[base + 2 * segs + 2 * j:base + 2 * segs + 2 + 2 * j])[0]
                          for j in range(segs)]
                ro_at = base + 4 * segs
                ranges = [struct.unpack(">H", data[ro_at + 2 * j:ro_at + 2 + 2 * j])[0] for j in range(segs)]

                def glyph(c, ends=ends, starts=starts, deltas=deltas, ranges=ranges):
                    for j, end in enumerate(ends):
                        if c <= end:
                            if c < starts[j]:
                                return 0
                            if ranges[j] == 0:
                                return (c + deltas[j]) & 0xFFFF
                            at = ro_at + 2 * j + ranges[j] + 2 * (c - starts[j])
                            g = struct.unpack(">H", data[at:at + 2])[0]
                            return (g + deltas[j]) & 0xFFFF if g else 0
                    return 0
                return glyph
        raise ValueError("no Unicode BMP cmap")

    def width(self, text, size):
        units = sum(self.adv[min(self.glyph(ord(c)), len(self.adv) - 1)] for c in text)
        return units * size / self.em


def main(paths):
    try:
        fonts = {(fam, bold): Font(FONTS + name) for (fam, bold), name in {
            ("sans", False): "DejaVuSans.ttf", ("sans", True): "DejaVuSans-Bold.ttf",
            ("mono", False): "DejaVuSansMono.ttf", ("mono", True): "DejaVuSansMono-Bold.ttf"}.items()}
    except OSError as e:
        print(f"SKIP: the DejaVu fonts are not installed ({e.filename}): apt-get install fonts-dejavu-core")
        return 77
    clipped = 0
    for path in paths:
        root = ET.parse(path).getroot()
        box = [float(v) for v in root.get("viewBox").split()]

        def walk(el, dx, dy, style):
            nonlocal clipped
            style = dict(style)
            for key in ("font-family", "font-size", "font-weight"):
                if el.get(key):
                    style[key] = el.get(key)
            t = el.get("transform", "")
            if t.startswith("translate("):
                parts = t[len("translate("):-1].replace(",", " ").split()
                dx += float(parts[0])
                dy += float(parts[1]) if len(parts) > 1 else 0
            if el.tag == SVG + "text":
                text = "".join(el.itertext())
                fam = "mono" if "mono" in style["font-family"] else "sans"
                font = fonts[(fam, style.get("font-weight") == "bold")]
                x = dx + float(el.get("x", 0))
                right = x + font.width(text, float(style["font-size"]))
                if x < box[0] or right > box[0] + box[2]:
                    print(f"{path}: '{text}' spans x {x:.0f} to {right:.0f}, "
                          f"outside the figure's 0 to {box[0] + box[2]:.0f}")
                    clipped += 1
            for child in el:
                walk(child, dx, dy, style)

        walk(root, 0.0, 0.0, {"font-family": "sans-serif", "font-size": "16"})
    return 1 if clipped else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
