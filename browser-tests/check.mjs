// Opens the gallery's index.html and the interactive page in the system's headless
// Chromium (never a downloaded browser) and checks what a person would see:
//  * every image of the gallery loads, and every scene's animation moves (two screenshots
//    of it a moment apart differ);
//  * the interactive page loads its wasm, a scripted mouse drag moves a body, and the
//    scene's joints stay within BOUND meanwhile;
//  * in the page's joint editor, a constraint typed in and applied runs at once (the
//    plank it holds stays within BOUND of it), and a broken one shows the message with its
//    span marked while the previous joint keeps running;
//  * neither page logs an error or fails a request.
// Usage: node check.mjs --gallery DIR --web DIR. Prints a JSON report; exits 1 on failure.
import http from "node:http";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";

const BOUND = 1e-3;
const args = process.argv.slice(2);
const option = (name) => {
  const i = args.indexOf(name);
  if (i < 0 || i + 1 >= args.length) throw new Error(`missing ${name} DIR`);
  return path.resolve(args[i + 1]);
};
const roots = { gallery: option("--gallery"), web: option("--web") };
const types = { ".html": "text/html", ".js": "text/javascript", ".svg": "image/svg+xml", ".wasm": "application/wasm" };

// Serves /gallery/… and /web/… from the two folders.
const server = http.createServer((request, response) => {
  const url = new URL(request.url, "http://localhost");
  const [, top, ...rest] = decodeURIComponent(url.pathname).split("/");
  const root = roots[top];
  const file = root && path.join(root, rest.join("/") || "index.html");
  if (!file || !file.startsWith(root) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
    response.writeHead(404).end("not found");
    return;
  }
  response.writeHead(200, { "content-type": types[path.extname(file)] ?? "application/octet-stream" });
  fs.createReadStream(file).pipe(response);
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const base = `http://127.0.0.1:${server.address().port}`;

const profile = fs.mkdtempSync(path.join(os.tmpdir(), "nape-chromium-"));
const browser = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  viewport: { width: 1200, height: 900 },
});
const failures = [];
const report = { gallery: {}, interactive: {} };
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function watch(page, where) {
  page.on("console", (message) => {
    if (message.type() === "error") failures.push(`${where}: console error: ${message.text()}`);
  });
  page.on("pageerror", (error) => failures.push(`${where}: page error: ${error.message}`));
  page.on("requestfailed", (request) => failures.push(`${where}: request failed: ${request.url()}`));
  page.on("response", (response) => {
    // The interactive link points at the page's own server, which is not running here.
    if (response.status() >= 400) failures.push(`${where}: HTTP ${response.status()} for ${response.url()}`);
  });
}

try {
  // The gallery.
  const gallery = await browser.newPage();
  watch(gallery, "gallery");
  await gallery.goto(`${base}/gallery/index.html`, { waitUntil: "load" });
  const images = await gallery.$$eval("img", (all) =>
    all.map((img) => ({ src: img.getAttribute("src"), loaded: img.complete && img.naturalWidth > 0 })));
  report.gallery.images = images.length;
  for (const image of images) if (!image.loaded) failures.push(`gallery: ${image.src} did not render`);
  const animations = await gallery.$$(".animation");
  report.gallery.animations = animations.length;
  if (animations.length === 0) failures.push("gallery: no animations");
  const link = await gallery.$eval("#interactive", (a) => a.href).catch(() => null);
  if (!link) failures.push("gallery: no link to the interactive page");
  const first = [];
  for (const element of animations) {
    await element.scrollIntoViewIfNeeded();
    first.push(await element.screenshot());
  }
  await sleep(800);
  const still = [];
  for (const [i, element] of animations.entries()) {
    await element.scrollIntoViewIfNeeded();
    const later = await element.screenshot();
    if (later.equals(first[i])) still.push(await element.getAttribute("src"));
  }
  report.gallery.still = still;
  for (const src of still) failures.push(`gallery: ${src} did not move`);

  // The interactive page.
  const page = await browser.newPage();
  watch(page, "interactive");
  await page.goto(`${base}/web/index.html`, { waitUntil: "load" });
  await page.waitForFunction(() => window.nape && window.nape.ready, null, { timeout: 10000 });
  report.interactive.scenes = await page.evaluate(() => window.nape.sceneCount());
  await page.evaluate(() => window.nape.load(0));
  // The chain's last link: the body farthest from the hook.
  const bodies = () => page.evaluate(() =>
    window.nape.records().filter((r) => r.dynamic).map((r) => ({ x: r.x, y: r.y })));
  // Paused, so the body is where the mouse presses.
  await page.click("#pause");
  const before = await bodies();
  const tip = before.length - 1;
  const canvas = await page.$("#canvas");
  const box = await canvas.boundingBox();
  const [sx, sy] = await page.evaluate(([x, y]) => window.nape.worldToScreen(x, y), [before[tip].x, before[tip].y]);
  await page.mouse.move(box.x + sx, box.y + sy);
  await page.mouse.down();
  await page.evaluate(() => document.getElementById("pause").click());
  // Two metres left and up: within the chain's reach.
  const goal = [before[tip].x - 2, before[tip].y + 2];
  const [gx, gy] = await page.evaluate(([x, y]) => window.nape.worldToScreen(x, y), goal);
  const target = [box.x + gx, box.y + gy];
  for (let k = 1; k <= 30; k++) {
    await page.mouse.move(box.x + sx + (target[0] - box.x - sx) * k / 30, box.y + sy + (target[1] - box.y - sy) * k / 30);
    await sleep(16);
  }
  await sleep(1000);
  const during = await bodies();
  report.interactive.grabbed = await page.evaluate(() => window.nape.records().some((r) => r.kind === "mouse"));
  if (!report.interactive.grabbed) failures.push("interactive: the mouse did not grab a body");
  await page.mouse.up();
  const moved = Math.hypot(during[tip].x - before[tip].x, during[tip].y - before[tip].y);
  const worst = await page.evaluate(() => window.nape.worstSinceReset());
  report.interactive.moved = moved;
  report.interactive.worstError = worst;
  report.interactive.readout = await page.textContent("#readout");
  const left = Math.hypot(during[tip].x - goal[0], during[tip].y - goal[1]);
  report.interactive.fromGoal = left;
  if (!(moved > 1 && left < 0.5)) failures.push(`interactive: the dragged body moved ${moved} m, ending ${left} m from where the mouse took it`);
  if (!(worst < BOUND)) failures.push(`interactive: joint error ${worst} during the drag (bound ${BOUND})`);
  for (const button of ["#pause", "#step", "#reset"]) await page.click(button);
  await page.selectOption("#scene", "8");
  await sleep(200);
  await page.screenshot({ path: path.join(roots.gallery, "interactive.png") });

  // The joint editor: the plank's left end on a level rail through the hook, in Nape's
  // language. Unheld, the plank would fall 11 m in the 1.5 s waited; on the rail its
  // centre stays within its half length (0.75 m) below the hook.
  const rail = [
    "# the plank's left end slides on a level rail through the hook",
    "body hook, plank",
    "vector anchor2",
    "constraint",
    "  let end = plank.position + relative plank.rotation anchor2 in",
    "  (end - hook.position) dot [0 1]",
  ].join("\n");
  const workbench = report.interactive.scenes - 1;
  if ((await page.textContent("#pause")) === "Play") await page.click("#pause");
  const plankHeight = async () => (await bodies())[0].y;
  const editor = {};
  report.interactive.editor = editor;
  await page.fill("#source", rail);
  await page.click("#apply");
  editor.scene = await page.evaluate(() => window.nape.currentScene());
  if (editor.scene !== workbench) failures.push(`editor: applying ran scene ${editor.scene}, not the workbench`);
  if (await page.isVisible("#error")) failures.push(`editor: the rail was refused: ${await page.textContent("#error")}`);
  await sleep(1500);
  editor.plankHeight = await plankHeight();
  editor.worstError = await page.evaluate(() => window.nape.worstSinceReset());
  if (!(editor.plankHeight < -0.1 && editor.plankHeight > -0.8)) failures.push(`editor: the plank is at height ${editor.plankHeight}, not swinging from the rail`);
  if (!(editor.worstError < BOUND)) failures.push(`editor: joint error ${editor.worstError} on the rail (bound ${BOUND})`);

  await page.fill("#source", rail.replace("plank.position", "plank.positon"));
  await page.click("#apply");
  editor.message = await page.textContent("#message");
  editor.marked = await page.textContent("#where mark").catch(() => null);
  if (!(await page.isVisible("#error")) || !editor.message.includes("did you mean `position`")) failures.push(`editor: the typo's message is ${JSON.stringify(editor.message)}`);
  if (editor.marked !== "positon") failures.push(`editor: the span marked is ${JSON.stringify(editor.marked)}, not the typo`);
  await sleep(500);
  editor.afterTypo = { scene: await page.evaluate(() => window.nape.currentScene()), plankHeight: await plankHeight() };
  editor.worstAfterTypo = await page.evaluate(() => window.nape.worstSinceReset());
  if (editor.afterTypo.scene !== workbench || !(editor.afterTypo.plankHeight > -0.8) || !(editor.worstAfterTypo < BOUND)) {
    failures.push(`editor: after the typo the rail did not keep running: ${JSON.stringify(editor.afterTypo)}, error ${editor.worstAfterTypo}`);
  }
  // Untrusted text at the size limits is a message, never a crash of the module.
  await page.fill("#source", `body plank\nconstraint ${"-".repeat(1500)}plank.rotation`);
  await page.click("#apply");
  editor.deep = await page.textContent("#message");
  if (!editor.deep.includes("tokens")) failures.push(`editor: 1,500 nested minuses gave ${JSON.stringify(editor.deep)}`);
} catch (error) {
  failures.push(`exception: ${error.stack ?? error}`);
} finally {
  await browser.close();
  server.close();
  fs.rmSync(profile, { recursive: true, force: true });
}
report.failures = failures;
console.log(JSON.stringify(report, null, 2));
process.exit(failures.length === 0 ? 0 : 1);
