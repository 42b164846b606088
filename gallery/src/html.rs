//! The gallery's `index.html`: every scene's animation, plot, figures and joint source.

use std::fmt::Write;

use crate::scenes::SceneInfo;

/// The figures of one scene's run.
#[derive(Clone, Debug)]
pub struct Summary {
    /// The scene's name.
    pub name: &'static str,
    /// Number of bodies.
    pub bodies: usize,
    /// Number of joints.
    pub joints: usize,
    /// Steps simulated.
    pub steps: usize,
    /// Worst position error of any joint at any step.
    pub worst_error: f32,
    /// Mean wall time of one `Space::step`, in microseconds.
    pub micros_per_step: f64,
}

/// Where `bash web/serve.sh` serves the interactive page.
pub const INTERACTIVE_URL: &str = "http://localhost:8000/";

/// Escapes text for HTML.
#[must_use]
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The index page of a gallery run: `scenes[i]` was run with the result `summaries[i]`,
/// and its files are `NAME.svg` and `NAME-plot.svg` beside the page.
#[must_use]
pub fn index(scenes: &[&SceneInfo], summaries: &[Summary], seconds: f32) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        r#"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>nape gallery</title>
<style>
body{{font-family:system-ui,sans-serif;margin:2em auto;max-width:1100px;padding:0 1em;color:#222}}
.scenes{{display:grid;grid-template-columns:repeat(auto-fill,minmax(500px,1fr));gap:1.5em}}
.scene{{border:1px solid #ddd;border-radius:6px;padding:1em}}
.scene h2{{font-size:1.1em;margin:0 0 .3em}} .scene p{{margin:.3em 0}}
img{{max-width:100%}} pre{{background:#f6f6f4;padding:.6em;overflow-x:auto;font-size:.8em}}
table{{border-collapse:collapse}} td,th{{padding:.2em .8em;text-align:right}} td:first-child,th:first-child{{text-align:left}}
.custom{{color:#2e8b57;font-weight:600}}
</style></head><body>
<h1>nape: joints at work</h1>
<p>Every builtin joint and {custom} joints declared right in the gallery's source with
<code>#[constraint]</code>, each simulated for {seconds} s at 60 Hz under gravity. Joints are
drawn from their debug-draw description (red: anchors and lever arms, dashed brown: ropes,
grey: axes and their limits, orange: angular ranges and drives, green: the generic picture of a
joint with none of its own; teal: a traced point's path, over the faint band of the path it
should follow). Regenerate with <code>cargo run --release --example gallery</code>.</p>
<p><a id="interactive" href="{INTERACTIVE_URL}">Interactive page</a>: drag any body with the mouse
(run <code>bash web/serve.sh</code> first, which builds it for WebAssembly and serves it on
localhost).</p>
"#,
        custom = scenes.iter().filter(|s| s.is_custom()).count(),
        seconds = seconds,
    );
    out.push_str(
        "<table><tr><th>scene</th><th>bodies</th><th>joints</th><th>steps</th>\
         <th>worst position error</th><th>µs/step</th></tr>\n",
    );
    for s in summaries {
        let _ = writeln!(
            out,
            "<tr><td><a href=\"#{0}\">{0}</a></td><td>{1}</td><td>{2}</td><td>{3}</td><td>{4:.2e}</td><td>{5:.1}</td></tr>",
            s.name, s.bodies, s.joints, s.steps, s.worst_error, s.micros_per_step
        );
    }
    out.push_str("</table>\n<div class=\"scenes\">\n");
    for (scene, summary) in scenes.iter().zip(summaries) {
        let kind = if scene.is_custom() {
            "<span class=\"custom\">custom joint</span>"
        } else if scene.joints.len() > 1 {
            "builtin joints"
        } else {
            "builtin joint"
        };
        let _ = write!(
            out,
            r#"<section class="scene" id="{name}"><h2>{title}</h2><p>{kind}: {about}</p>
<img class="animation" src="{name}.svg" alt="{title}, animated">
<img class="plot" src="{name}-plot.svg" alt="position error and energy of {name}">
<p>{bodies} bodies, {joints} joints, {steps} steps; worst position error {worst:.2e}; {micros:.1} µs/step</p>
<pre><code>{source}</code></pre></section>
"#,
            name = scene.name,
            title = escape(scene.title),
            about = escape(scene.about),
            bodies = summary.bodies,
            joints = summary.joints,
            steps = summary.steps,
            worst = summary.worst_error,
            micros = summary.micros_per_step,
            source = escape(&scene.joint_source()),
        );
    }
    out.push_str("</div>\n</body></html>\n");
    out
}
