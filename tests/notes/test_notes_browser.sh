#!/usr/bin/env bash
# The rendered notes in a real browser: every page opened in headless Chromium, every figure
# must have loaded (naturalWidth > 0) and nothing may make the page wider than the window.
# A small script added to a copy of each page writes what it found into the DOM, which
# --dump-dom prints. Without /usr/bin/chromium: one SKIP line.
source "$(dirname "$0")/../lib.sh"

browser=${CHROMIUM:-/usr/bin/chromium}
[ -x "$browser" ] || { echo "SKIP: no $browser to open the notes in (optional: apt-get install chromium)"; exit 77; }

out="$TEST_TMP/notes"
make -s --no-print-directory notes NOTES_OUT="$out" >"$TEST_TMP/make.log" 2>&1 \
  || { bad "make notes failed"; tail -n 20 "$TEST_TMP/make.log"; finish; }

probe='<script>
window.addEventListener("load", function () {
  var imgs = document.images, broken = [];
  for (var i = 0; i < imgs.length; i++)
    if (!imgs[i].complete || imgs[i].naturalWidth === 0) broken.push(imgs[i].getAttribute("src"));
  var root = document.documentElement, wide = [];
  document.querySelectorAll("body > *").forEach(function (e) {
    if (e.getBoundingClientRect().right > root.clientWidth + 1) wide.push(e.tagName);
  });
  var p = document.createElement("pre");
  p.id = "lab-check";
  p.textContent = "LAB" + "CHECK images=" + imgs.length + " broken=[" + broken.join(" ") + "] scroll=" +
      root.scrollWidth + " client=" + root.clientWidth + " wide=[" + wide.join(" ") + "]";
  document.body.appendChild(p);
});
</script>'

for page in "$out"/*/index.html; do
  l=$(basename "$(dirname "$page")")
  check="$(dirname "$page")/check.html"
  awk -v probe="$probe" '/<\/body>/ { print probe } { print }' "$page" >"$check"
  for width in 1000 420; do
    timeout 60 "$browser" --headless --no-sandbox --disable-gpu --disable-background-networking \
      --no-first-run --hide-scrollbars --window-size="$width,900" --virtual-time-budget=10000 \
      --user-data-dir="$TEST_TMP/profile" --dump-dom "file://$check" >"$TEST_TMP/dom" 2>"$TEST_TMP/chromium.log"
    line=$(grep -o 'LABCHECK[^<]*' "$TEST_TMP/dom")
    if [ -z "$line" ]; then bad "$l at $width px: the probe did not run"; tail -n 5 "$TEST_TMP/chromium.log"; continue; fi
    images=$(sed 's/.*images=\([0-9]*\).*/\1/' <<<"$line")
    broken=$(sed 's/.*broken=\[\([^]]*\)\].*/\1/' <<<"$line")
    scroll=$(sed 's/.*scroll=\([0-9]*\).*/\1/' <<<"$line")
    client=$(sed 's/.*client=\([0-9]*\).*/\1/' <<<"$line")
    if [ -n "$broken" ]; then bad "$l at $width px: figures that did not load: $broken"
    elif [ "$images" -lt 2 ]; then bad "$l at $width px: $images figures"
    elif [ "$scroll" -gt "$client" ]; then bad "$l at $width px: page is $scroll px wide in a $client px window ($line)"
    else ok "$l at $width px: $images figures loaded, nothing wider than the page"; fi
  done
done
finish
