#!/usr/bin/env bash
# The rendered notes in a real browser: every page opened in headless Chromium, every figure
# must have loaded (naturalWidth > 0) and nothing may make the page wider than the window.
# A small script added to a copy of each page writes what it found into the DOM, which
# --dump-dom prints. The probe is first shown a page with a missing figure and a wide block,
# which it must report. The browser: $CHROMIUM, else chromium-headless-shell (what make deps
# installs), else chromium; without any of them, one SKIP line.
source "$(dirname "$0")/../lib.sh"

browser=${CHROMIUM:-$(command -v chromium-headless-shell || command -v chromium)}
if [ -z "$browser" ] || [ ! -x "$browser" ]; then
  echo "SKIP: no headless Chromium${CHROMIUM:+ at $CHROMIUM} (chromium-headless-shell or chromium; make deps installs chromium-headless-shell)"
  exit 77
fi

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

# open FILE at WIDTH px; the probe's line, or nothing
probe_line() {
  timeout 60 "$browser" --headless --no-sandbox --disable-gpu --disable-background-networking \
    --no-first-run --hide-scrollbars --window-size="$2,900" --virtual-time-budget=10000 \
    --user-data-dir="$TEST_TMP/profile" --dump-dom "file://$1" >"$TEST_TMP/dom" 2>"$TEST_TMP/chromium.log"
  grep -o 'LABCHECK[^<]*' "$TEST_TMP/dom"
}
field() { sed "s/.* $1=\\([^ ]*\\).*/\\1/" <<<"$2"; }

# the probe itself: a figure that is not there and a block wider than the window are found
printf '<html><body><p><img src="none.svg"></p><pre style="width:3000px">wide</pre>\n</body></html>\n' \
  | awk -v probe="$probe" '/<\/body>/ { print probe } { print }' >"$TEST_TMP/bad.html"
line=$(probe_line "$TEST_TMP/bad.html" 1000)
if [ -z "$line" ]; then bad "the probe did not run in $browser"; tail -n 5 "$TEST_TMP/chromium.log"; finish; fi
[[ $line == *"broken=[none.svg]"* && $line == *"wide=[PRE]"* ]] && [ "$(field scroll "$line")" -gt "$(field client "$line")" ] \
  && ok "the probe reports a missing figure and a block wider than the page" \
  || bad "the probe missed a fault of a bad page: $line"

for page in "$out"/*/index.html; do
  l=$(basename "$(dirname "$page")")
  check="$(dirname "$page")/check.html"
  awk -v probe="$probe" '/<\/body>/ { print probe } { print }' "$page" >"$check"
  for width in 1000 420; do
    line=$(probe_line "$check" "$width")
    if [ -z "$line" ]; then bad "$l at $width px: the probe did not run"; tail -n 5 "$TEST_TMP/chromium.log"; continue; fi
    images=$(field images "$line")
    broken=$(sed 's/.*broken=\[\([^]]*\)\].*/\1/' <<<"$line")
    scroll=$(field scroll "$line")
    client=$(field client "$line")
    if [ -n "$broken" ]; then bad "$l at $width px: figures that did not load: $broken"
    elif [ "$images" -lt 2 ]; then bad "$l at $width px: $images figures"
    elif [ "$scroll" -gt "$client" ]; then bad "$l at $width px: page is $scroll px wide in a $client px window ($line)"
    else ok "$l at $width px: $images figures loaded, nothing wider than the page"; fi
  done
done
finish
