// Draws the wasm module's scenes on the canvas and forwards the mouse. The module's
// exports and its drawing buffer are described in web/src/lib.rs.
"use strict";

const canvas = document.getElementById("canvas");
const context = canvas.getContext("2d");
const readout = document.getElementById("readout");
const sceneMenu = document.getElementById("scene");
const pauseButton = document.getElementById("pause");
const sourceArea = document.getElementById("source");
const exampleMenu = document.getElementById("example");
const errorBox = document.getElementById("error");
const DT = 1 / 60;
const encoder = new TextEncoder();
const decoder = new TextDecoder();
// The strings the module holds (web/src/lib.rs, `Text`).
const TEXT = { source: 0, error: 1, exampleTitle: 2, example: 3 };

const state = { exports: null, paused: false, scale: 1, origin: [0, 0], stepMicros: 0, worst: 0 };

function worldToScreen(x, y) {
  return [(x - state.origin[0]) * state.scale, canvas.height - (y - state.origin[1]) * state.scale];
}

function screenToWorld(px, py) {
  return [px / state.scale + state.origin[0], (canvas.height - py) / state.scale + state.origin[1]];
}

function fitView() {
  const e = state.exports;
  const [lx, ly, hx, hy] = [0, 1, 2, 3].map((c) => e.view(c));
  state.scale = Math.min(canvas.width / (hx - lx), canvas.height / (hy - ly));
  // Centre the scene's rectangle on the canvas.
  const cx = (lx + hx) / 2, cy = (ly + hy) / 2;
  state.origin = [cx - canvas.width / 2 / state.scale, cy - canvas.height / 2 / state.scale];
}

function readText(kind, i = 0) {
  const e = state.exports;
  const [pointer, length] = [e.text_ptr(kind, i), e.text_len(kind, i)];
  return decoder.decode(new Uint8Array(e.memory.buffer, pointer, length));
}

// A reset keeps what the user is typing; a scene picked from the menu shows its joint.
function loadScene(i, { showSource = true } = {}) {
  state.exports.load(i);
  state.worst = 0;
  fitView();
  draw();
  if (showSource) {
    sourceArea.value = readText(TEXT.source);
    hideError();
  }
}

function hideError() {
  errorBox.hidden = true;
  sourceArea.classList.remove("invalid");
}

// The message under the text, and the line it points into with the span marked. The
// module counts bytes of UTF-8; the text area counts UTF-16 units.
function showError(text, bytes) {
  const e = state.exports;
  const index = (byte) => decoder.decode(bytes.subarray(0, byte)).length;
  const [start, end] = [index(e.error_span(0)), index(e.error_span(1))];
  document.getElementById("message").textContent = readText(TEXT.error);
  const where = document.getElementById("where");
  where.replaceChildren();
  if (end > start) {
    const lineStart = text.lastIndexOf("\n", start - 1) + 1;
    const newline = text.indexOf("\n", start);
    const lineEnd = newline < 0 ? text.length : newline;
    const markEnd = Math.min(end, lineEnd);
    const line = text.slice(0, start).split("\n").length;
    const mark = document.createElement("mark");
    mark.textContent = text.slice(start, markEnd);
    where.append(`line ${line}: ${text.slice(lineStart, start)}`, mark, text.slice(markEnd, lineEnd));
    sourceArea.setSelectionRange(start, end);
  }
  errorBox.hidden = false;
  sourceArea.classList.add("invalid");
}

// Derives the text in the module; on success the workbench runs with it from its start.
function applySource() {
  const e = state.exports;
  const text = sourceArea.value;
  const bytes = encoder.encode(text);
  // Asking for the buffer may grow the memory, which detaches any view taken before.
  const buffer = e.source_buffer(bytes.length);
  new Uint8Array(e.memory.buffer, buffer, bytes.length).set(bytes);
  if (e.apply_source()) {
    sceneMenu.value = String(e.current_scene());
    state.worst = 0;
    fitView();
    hideError();
    draw();
  } else {
    showError(text, bytes);
  }
}

function frame() {
  const e = state.exports;
  const length = e.frame();
  return new Float32Array(e.memory.buffer, e.frame_ptr(), length);
}

// Reads the frame buffer into records: bodies, joint primitives and the mouse.
function decode(buffer) {
  const records = [];
  let i = 0;
  while (i < buffer.length) {
    const tag = buffer[i];
    const take = (n) => { const r = Array.from(buffer.subarray(i + 1, i + 1 + n)); i += 1 + n; return r; };
    if (tag === 1) { const [x, y, a, r, d] = take(5); records.push({ kind: "circle", x, y, a, r, dynamic: d > 0 }); }
    else if (tag === 2) { const [x, y, a, rx, ry, d] = take(6); records.push({ kind: "ellipse", x, y, a, rx, ry, dynamic: d > 0 }); }
    else if (tag === 3) { const [x, y, a, hx, hy, d] = take(6); records.push({ kind: "rectangle", x, y, a, hx, hy, dynamic: d > 0 }); }
    else if (tag === 4) {
      const [x, y, a, d, n] = take(5);
      const vertices = Array.from(buffer.subarray(i, i + 2 * n));
      i += 2 * n;
      records.push({ kind: "polygon", x, y, a, dynamic: d > 0, vertices });
    }
    else if (tag === 5) { const [x, y] = take(2); records.push({ kind: "hook", x, y }); }
    else if (tag === 10) { const [x, y] = take(2); records.push({ kind: "anchor", x, y }); }
    else if (tag === 11) { const [x1, y1, x2, y2, style] = take(5); records.push({ kind: "segment", x1, y1, x2, y2, style }); }
    else if (tag === 12) { const [x1, y1, x2, y2, lo, hi] = take(6); records.push({ kind: "axis", x1, y1, x2, y2, lo: lo > 0, hi: hi > 0 }); }
    else if (tag === 13) { const [x, y, r, start, end] = take(5); records.push({ kind: "arc", x, y, r, start, end }); }
    else if (tag === 14) { const [x1, y1, x2, y2] = take(4); records.push({ kind: "ideal", x1, y1, x2, y2 }); }
    else if (tag === 15) {
      const [n] = take(1);
      const points = Array.from(buffer.subarray(i, i + 2 * n));
      i += 2 * n;
      records.push({ kind: "trace", points });
    }
    else if (tag === 20) { const [gx, gy, tx, ty] = take(4); records.push({ kind: "mouse", gx, gy, tx, ty }); }
    else { throw new Error(`unknown record tag ${tag} at ${i}`); }
  }
  return records;
}

function line(x1, y1, x2, y2) {
  const [a, b] = [worldToScreen(x1, y1), worldToScreen(x2, y2)];
  context.beginPath();
  context.moveTo(a[0], a[1]);
  context.lineTo(b[0], b[1]);
  context.stroke();
}

function drawBody(r) {
  const [sx, sy] = worldToScreen(r.x, r.y);
  const s = state.scale;
  context.save();
  context.translate(sx, sy);
  context.rotate(-r.a);
  context.fillStyle = r.dynamic ? "#cfe0fc" : "#ddd";
  context.strokeStyle = r.dynamic ? "#1a3d7c" : "#555";
  context.lineWidth = 1.5;
  context.beginPath();
  let spoke = 0;
  if (r.kind === "circle") { context.arc(0, 0, r.r * s, 0, 2 * Math.PI); spoke = r.r; }
  else if (r.kind === "ellipse") { context.ellipse(0, 0, r.rx * s, r.ry * s, 0, 0, 2 * Math.PI); spoke = r.rx; }
  else if (r.kind === "rectangle") { context.rect(-r.hx * s, -r.hy * s, 2 * r.hx * s, 2 * r.hy * s); }
  else if (r.kind === "polygon") {
    for (let k = 0; k < r.vertices.length; k += 2) context.lineTo(r.vertices[k] * s, -r.vertices[k + 1] * s);
    context.closePath();
    spoke = Math.hypot(r.vertices[0], r.vertices[1]);
  }
  if (r.kind === "ellipse") { context.lineWidth = 3; context.stroke(); }
  else { context.fill(); context.stroke(); }
  if (spoke > 0) { context.lineWidth = 1.5; context.beginPath(); context.moveTo(0, 0); context.lineTo(spoke * s, 0); context.stroke(); }
  context.restore();
}

function drawRecord(r) {
  context.setLineDash([]);
  context.lineWidth = 1.5;
  if (r.kind === "hook") {
    const [x, y] = worldToScreen(r.x, r.y);
    context.fillStyle = "#555";
    context.beginPath(); context.moveTo(x, y); context.lineTo(x - 6, y - 10); context.lineTo(x + 6, y - 10); context.fill();
  } else if (r.kind === "anchor") {
    const [x, y] = worldToScreen(r.x, r.y);
    context.fillStyle = "#d0312d";
    context.beginPath(); context.arc(x, y, 3.5, 0, 2 * Math.PI); context.fill();
  } else if (r.kind === "segment") {
    context.strokeStyle = ["#d0312d", "#a0700b", "#2e8b57"][r.style];
    context.setLineDash([[], [6, 4], [2, 4]][r.style]);
    line(r.x1, r.y1, r.x2, r.y2);
  } else if (r.kind === "axis") {
    context.strokeStyle = "#777";
    context.setLineDash([8, 4]);
    line(r.x1, r.y1, r.x2, r.y2);
    context.setLineDash([]);
    context.lineWidth = 3;
    const len = Math.hypot(r.x2 - r.x1, r.y2 - r.y1) || 1;
    const [nx, ny] = [-(r.y2 - r.y1) / len * 0.15, (r.x2 - r.x1) / len * 0.15];
    if (r.lo) line(r.x1 - nx, r.y1 - ny, r.x1 + nx, r.y1 + ny);
    if (r.hi) line(r.x2 - nx, r.y2 - ny, r.x2 + nx, r.y2 + ny);
  } else if (r.kind === "arc") {
    const [x, y] = worldToScreen(r.x, r.y);
    context.strokeStyle = "#e07b00";
    context.lineWidth = 2;
    context.beginPath();
    // Screen y points down, so world angles are negated.
    context.arc(x, y, r.r * state.scale, -r.start, -r.end, r.end > r.start);
    context.stroke();
  } else if (r.kind === "ideal") {
    // Wide and faint, so the trace is seen holding it.
    context.strokeStyle = "rgba(10, 143, 143, 0.22)";
    context.lineWidth = 10;
    context.lineCap = "round";
    line(r.x1, r.y1, r.x2, r.y2);
    context.lineCap = "butt";
  } else if (r.kind === "trace") {
    context.strokeStyle = "#0a7070";
    context.beginPath();
    for (let k = 0; k < r.points.length; k += 2) {
      const [x, y] = worldToScreen(r.points[k], r.points[k + 1]);
      context.lineTo(x, y);
    }
    context.stroke();
  } else if (r.kind === "mouse") {
    context.strokeStyle = "#9b30d9";
    context.setLineDash([3, 3]);
    line(r.gx, r.gy, r.tx, r.ty);
  } else {
    drawBody(r);
  }
}

function draw() {
  context.clearRect(0, 0, canvas.width, canvas.height);
  for (const record of decode(frame())) drawRecord(record);
  readout.textContent =
    `worst joint error ${state.exports.worst_error().toExponential(2)} (since reset ${state.worst.toExponential(2)}), ` +
    `step ${state.stepMicros.toFixed(0)} µs`;
}

function advance() {
  const started = performance.now();
  state.exports.step(DT);
  const micros = (performance.now() - started) * 1000;
  state.stepMicros = state.stepMicros === 0 ? micros : 0.9 * state.stepMicros + 0.1 * micros;
  state.worst = Math.max(state.worst, state.exports.worst_error());
}

function tick() {
  if (!state.paused) advance();
  draw();
  requestAnimationFrame(tick);
}

function pointer(event) {
  const box = canvas.getBoundingClientRect();
  return screenToWorld(event.clientX - box.left, event.clientY - box.top);
}

canvas.addEventListener("pointerdown", (event) => {
  const [x, y] = pointer(event);
  if (state.exports.mouse_down(x, y)) {
    canvas.classList.add("dragging");
    canvas.setPointerCapture(event.pointerId);
  }
});
canvas.addEventListener("pointermove", (event) => {
  const [x, y] = pointer(event);
  state.exports.mouse_move(x, y);
});
const release = () => { state.exports.mouse_up(); canvas.classList.remove("dragging"); };
canvas.addEventListener("pointerup", release);
canvas.addEventListener("pointercancel", release);

pauseButton.addEventListener("click", () => {
  state.paused = !state.paused;
  pauseButton.textContent = state.paused ? "Play" : "Pause";
});
document.getElementById("step").addEventListener("click", () => { advance(); draw(); });
document.getElementById("reset").addEventListener("click",
  () => loadScene(state.exports.current_scene(), { showSource: false }));
sceneMenu.addEventListener("change", () => loadScene(Number(sceneMenu.value)));
document.getElementById("apply").addEventListener("click", applySource);
exampleMenu.addEventListener("change", () => {
  if (exampleMenu.value !== "") sourceArea.value = readText(TEXT.example, Number(exampleMenu.value));
  exampleMenu.value = "";
  hideError();
});

// What a test (or a curious reader at the console) can ask the page.
window.nape = {
  get ready() { return state.exports !== null; },
  records: () => decode(frame()),
  worstError: () => state.exports.worst_error(),
  worstSinceReset: () => state.worst,
  worldToScreen,
  sceneCount: () => state.exports.scene_count(),
  currentScene: () => state.exports.current_scene(),
  load: (i) => { sceneMenu.value = String(i); loadScene(i); },
};

async function start() {
  const bytes = await (await fetch("nape_web.wasm")).arrayBuffer();
  const { instance } = await WebAssembly.instantiate(bytes, {});
  state.exports = instance.exports;
  for (let i = 0; i < state.exports.scene_count(); i++) {
    const title = decoder.decode(new Uint8Array(state.exports.memory.buffer,
      state.exports.scene_title_ptr(i), state.exports.scene_title_len(i)));
    const option = document.createElement("option");
    option.value = String(i);
    option.textContent = title;
    sceneMenu.appendChild(option);
  }
  for (let i = 0; i < state.exports.example_count(); i++) {
    const option = document.createElement("option");
    option.value = String(i);
    option.textContent = readText(TEXT.exampleTitle, i);
    exampleMenu.appendChild(option);
  }
  loadScene(0);
  requestAnimationFrame(tick);
}

start().catch((error) => {
  readout.textContent = `failed to start: ${error}`;
  console.error(error);
});
