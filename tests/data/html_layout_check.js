/* html_layout_check.js: tests/test_html_layout.c appends this to a copy of a report (its CSP
 * removed) shown in an iframe of the width under test; it posts to the frame's parent what is wrong:
 * page-level horizontal overflow, an element wider than the page outside a scroll container, an SVG
 * chart not wholly inside the page (even in a scroll container: charts scale to their container),
 * SVG text cut by its chart (its viewBox or its box on the page) or under 10 px high, text over a
 * bar or over other text, HTML cut by overflow; and which sections and tables scroll sideways. */
(function(){
  var de = document.documentElement, W = de.clientWidth, r = {width: W, problems: []};
  if (de.scrollWidth > W + 1) r.problems.push('page overflows: ' + de.scrollWidth + ' > ' + W);
  function inter(a, b) {
    var w = Math.min(a.right, b.right) - Math.max(a.left, b.left), h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
    return w > 1 && h > 1 ? w * h : 0;
  }
  function scroller(e) { /* the nearest ancestor that scrolls or clips sideways, or null */
    for (var p = e.parentElement; p && p !== document.body; p = p.parentElement) {
      var o = getComputedStyle(p).overflowX;
      if (o == 'auto' || o == 'scroll' || o == 'hidden' || o == 'clip') return p;
    }
    return null;
  }
  var wide = 0;
  document.querySelectorAll('body *').forEach(function(e) {
    if (e.closest('svg') && e.tagName.toLowerCase() != 'svg') return;
    var b = e.getBoundingClientRect();
    if (!b.width || (b.right <= W + 1 && b.left >= -1)) return;
    if (e.tagName.toLowerCase() == 'svg') r.problems.push('chart #' + e.id + ' not inside the page: ' + b.left.toFixed(0) + ' to ' + b.right.toFixed(0) + ' px of ' + W);
    else if (!scroller(e) && wide++ < 5) r.problems.push('wider than the page: ' + e.tagName + (e.id ? '#' + e.id : '') + ' ' + b.left.toFixed(0) + ' to ' + b.right.toFixed(0) + ' px of ' + W);
  });
  document.querySelectorAll('svg').forEach(function(svg) {
    var vb = svg.viewBox && svg.viewBox.baseVal, boxes = [], marks = [], sb = svg.getBoundingClientRect();
    svg.querySelectorAll('rect[data-tip]').forEach(function(m) { var b = m.getBoundingClientRect(); if (b.width > 0) marks.push(b); });
    svg.querySelectorAll('text').forEach(function(t) {
      var b = t.getBBox();
      if (!b.width) return;
      if (vb && vb.width && (b.x < vb.x - 0.5 || b.y < vb.y - 0.5 || b.x + b.width > vb.x + vb.width + 0.5 || b.y + b.height > vb.y + vb.height + 0.5))
        r.problems.push('clipped text in #' + svg.id + ': "' + t.textContent + '"');
      var c = t.getBoundingClientRect();
      if (c.left < sb.left - 0.5 || c.right > sb.right + 0.5 || c.top < sb.top - 0.5 || c.bottom > sb.bottom + 0.5)
        r.problems.push('text cut by its chart #' + svg.id + ': "' + t.textContent + '"');
      if (c.height < 10) r.problems.push('text ' + c.height.toFixed(1) + ' px high in #' + svg.id + ': "' + t.textContent + '"');
      boxes.push({t: t.textContent, b: c});
      marks.forEach(function(m) { if (inter(c, m) > 4) r.problems.push('text over a bar in #' + svg.id + ': "' + t.textContent + '"'); });
    });
    for (var i = 0; i < boxes.length; i++) for (var k = i + 1; k < boxes.length; k++)
      if (inter(boxes[i].b, boxes[k].b) > 4) r.problems.push('overlapping text in #' + svg.id + ': "' + boxes[i].t + '" / "' + boxes[k].t + '"');
  });
  r.scrolls = [];
  document.querySelectorAll('.scroll, section').forEach(function(e) {
    if (e.scrollWidth > e.clientWidth + 1) r.scrolls.push((e.id || e.firstElementChild && e.firstElementChild.id || e.tagName));
  });
  document.querySelectorAll('body *').forEach(function(e) {
    var cs = getComputedStyle(e);
    if ((cs.overflowX == 'hidden' || cs.overflowX == 'clip' || cs.textOverflow == 'ellipsis') && e.scrollWidth > e.clientWidth + 1)
      r.problems.push('clipped ' + e.tagName + (e.id ? '#' + e.id : ''));
  });
  if (window.parent !== window) { window.parent.postMessage(JSON.stringify(r), '*'); return; }
  var pre = document.createElement('pre'); pre.id = 'layout-check'; pre.textContent = JSON.stringify(r); document.body.appendChild(pre);
})();
