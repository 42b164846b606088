//! SVG output: a run as an animation that loops in any browser without script (SMIL
//! `<animate>` over sampled frames), and a plot of its error and energy over time.

use std::collections::BTreeMap;
use std::fmt::Write;

use nape::Pose;
use nape::Vec2;
use nape::draw::{DrawPrimitive, SegmentStyle};

use crate::world::{Shape, World};

/// The state of a scene at one sampled instant.
#[derive(Clone, Debug)]
pub struct Frame {
    /// Time since the start, in seconds.
    pub time: f32,
    /// The pose of each drawn body, in the world's drawing order.
    pub poses: Vec<Pose>,
    /// Each joint's picture.
    pub joints: Vec<Vec<DrawPrimitive>>,
    /// The worst position error of any joint at this instant.
    pub error: f32,
    /// Kinetic plus potential energy.
    pub energy: f32,
    /// Where each traced point is ([`World::traced_points`]).
    pub traced: Vec<Vec2>,
}

impl Frame {
    /// Samples `world` at `time`.
    #[must_use]
    pub fn sample(world: &World, time: f32) -> Self {
        Self {
            time,
            poses: world.bodies.iter().map(|b| world.pose(b.handle)).collect(),
            joints: world.joint_pictures(),
            error: world.worst_violation(),
            energy: world.energy(),
            traced: world.traced_points(),
        }
    }
}

/// Width of an animation in pixels (its height follows the scene's aspect ratio).
const WIDTH: f32 = 480.0;
/// How far an infinite end of an axis is drawn.
const FAR: f32 = 50.0;

fn num(x: f32) -> String {
    let rounded = (x * 1000.0).round() / 1000.0;
    if rounded == 0.0 {
        "0".to_owned()
    } else {
        format!("{rounded}")
    }
}

fn point(p: Vec2) -> String {
    format!("{} {}", num(p.x), num(p.y))
}

/// One SVG element of a joint's picture at one frame.
#[derive(Clone, Debug, PartialEq)]
struct Element {
    tag: &'static str,
    class: &'static str,
    attributes: Vec<(&'static str, String)>,
}

fn line(class: &'static str, from: Vec2, to: Vec2) -> Element {
    Element {
        tag: "line",
        class,
        attributes: vec![
            ("x1", num(from.x)),
            ("y1", num(from.y)),
            ("x2", num(to.x)),
            ("y2", num(to.y)),
        ],
    }
}

fn elements(primitive: &DrawPrimitive) -> Vec<Element> {
    match *primitive {
        DrawPrimitive::Anchor { at } => vec![Element {
            tag: "circle",
            class: "anchor",
            attributes: vec![("cx", num(at.x)), ("cy", num(at.y)), ("r", num(0.06))],
        }],
        DrawPrimitive::Segment { from, to, style } => {
            let class = match style {
                SegmentStyle::Rigid => "rigid",
                SegmentStyle::Rope => "rope",
                SegmentStyle::Link => "link",
            };
            vec![line(class, from, to)]
        }
        DrawPrimitive::Axis {
            origin,
            direction,
            min,
            max,
        } => {
            let at = |t: f32| origin + t.clamp(-FAR, FAR) * direction;
            let mut out = vec![line("axis", at(min), at(max))];
            let across = 0.15 * direction.perp();
            for end in [min, max] {
                if end.is_finite() {
                    out.push(line("limit", at(end) - across, at(end) + across));
                }
            }
            out
        }
        DrawPrimitive::Arc {
            centre,
            radius,
            start,
            end,
        } => {
            let from = centre + radius * Vec2::from_angle(start);
            let to = centre + radius * Vec2::from_angle(end);
            let large = u8::from((end - start).abs() > std::f32::consts::PI);
            let sweep = u8::from(end > start);
            let r = num(radius);
            vec![Element {
                tag: "path",
                class: "arc",
                attributes: vec![(
                    "d",
                    format!(
                        "M {} A {r} {r} 0 {large} {sweep} {}",
                        point(from),
                        point(to)
                    ),
                )],
            }]
        }
    }
}

fn animate(out: &mut String, attribute: &str, values: &[String], seconds: f32) {
    let _ = write!(
        out,
        r#"<animate attributeName="{attribute}" dur="{}s" repeatCount="indefinite" values="{}"/>"#,
        num(seconds),
        values.join(";")
    );
}

fn shape(out: &mut String, shape: &Shape, dynamic: bool) {
    let class = if dynamic { "body" } else { "fixed" };
    match shape {
        Shape::Circle { radius } => {
            let _ = write!(
                out,
                r#"<circle class="{class}" r="{}"/><line class="spoke" x2="{}"/>"#,
                num(*radius),
                num(*radius)
            );
        }
        Shape::Ellipse { radii } => {
            let _ = write!(
                out,
                r#"<ellipse class="{class} wire" rx="{}" ry="{}"/><line class="spoke" x2="{}"/>"#,
                num(radii.x),
                num(radii.y),
                num(radii.x)
            );
        }
        Shape::Rectangle { half } => {
            let _ = write!(
                out,
                r#"<rect class="{class}" x="{}" y="{}" width="{}" height="{}"/>"#,
                num(-half.x),
                num(-half.y),
                num(2.0 * half.x),
                num(2.0 * half.y)
            );
        }
        Shape::Polygon { vertices } => {
            let points: Vec<String> = vertices.iter().map(|v| point(*v)).collect();
            let _ = write!(
                out,
                r#"<polygon class="{class}" points="{}"/><line class="spoke" x2="{}"/>"#,
                points.join(" "),
                num(vertices.first().map_or(0.0, |v| v.length()))
            );
        }
        Shape::Hook => {
            out.push_str(r#"<polygon class="hook" points="0 0 -0.12 0.2 0.12 0.2"/>"#);
        }
    }
}

const STYLE: &str = "\
.body{fill:#cfe0fc;stroke:#1a3d7c}.wire{fill:none;stroke-width:2.5}\
.fixed{fill:#ddd;stroke:#555}.hook{fill:#555;stroke:none}\
.spoke{stroke:#1a3d7c}.anchor{fill:#d0312d;stroke:none}\
.rigid{stroke:#d0312d}.rope{stroke:#a0700b;stroke-dasharray:5 3}\
.link{stroke:#2e8b57;stroke-dasharray:2 3}.axis{stroke:#777;stroke-dasharray:8 4}\
.limit{stroke:#777;stroke-width:2.5}.arc{fill:none;stroke:#e07b00;stroke-width:2}\
.ideal{stroke:#0a8f8f;stroke-opacity:.22;stroke-width:7;stroke-linecap:round}.trace{stroke:#0a7070}\
line,rect,circle,ellipse,polygon,path{vector-effect:non-scaling-stroke;stroke-width:1.5}";

/// The animation of `frames` of `world`'s bodies and joints, looping every
/// `frames.len() × frame_seconds` seconds.
#[must_use]
pub fn animation(world: &World, frames: &[Frame], frame_seconds: f32) -> String {
    let (low, high) = world.view;
    let size = high - low;
    let seconds = frames.len() as f32 * frame_seconds;
    let mut out = String::new();
    let _ = write!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="{} {} {} {}" width="{}" height="{}">"#,
        num(low.x),
        num(-high.y),
        num(size.x),
        num(size.y),
        num(WIDTH),
        num((WIDTH * size.y / size.x).round())
    );
    let _ = write!(
        out,
        r##"<style>{STYLE}</style><rect x="{}" y="{}" width="{}" height="{}" fill="#fbfbf8"/><g transform="scale(1 -1)">"##,
        num(low.x),
        num(-high.y),
        num(size.x),
        num(size.y)
    );
    // Under the bodies, so the mechanism is seen on top of the path it should follow.
    for ideal in world.traces().iter().filter_map(|t| t.ideal) {
        write_element(&mut out, &line("ideal", ideal.0, ideal.1), "");
    }
    for (b, drawn) in world.bodies.iter().enumerate() {
        let positions: Vec<String> = frames.iter().map(|f| point(f.poses[b].position)).collect();
        let angles: Vec<String> = frames
            .iter()
            .map(|f| num(f.poses[b].angle().to_degrees()))
            .collect();
        let first = frames.first().map(|f| f.poses[b]).unwrap_or_default();
        let _ = write!(
            out,
            r#"<g transform="translate({})">"#,
            point(first.position)
        );
        if positions.iter().any(|p| *p != positions[0]) {
            let _ = write!(
                out,
                r#"<animateTransform attributeName="transform" type="translate" dur="{}s" repeatCount="indefinite" values="{}"/>"#,
                num(seconds),
                positions.join(";")
            );
        }
        let _ = write!(
            out,
            r#"<g transform="rotate({})">"#,
            num(first.angle().to_degrees())
        );
        if angles.iter().any(|a| *a != angles[0]) {
            let _ = write!(
                out,
                r#"<animateTransform attributeName="transform" type="rotate" dur="{}s" repeatCount="indefinite" values="{}"/>"#,
                num(seconds),
                angles.join(";")
            );
        }
        shape(&mut out, &drawn.shape, drawn.dynamic);
        out.push_str("</g></g>");
    }
    joints(&mut out, frames, seconds);
    // Over everything: a rod lying along the path for a moment must not hide it.
    traces(&mut out, world, frames, seconds);
    out.push_str("</g></svg>\n");
    out
}

/// Writes `element` with `inside` it (self-closed if that is empty).
fn write_element(out: &mut String, element: &Element, inside: &str) {
    let _ = write!(out, r#"<{} class="{}""#, element.tag, element.class);
    for (name, value) in &element.attributes {
        let _ = write!(out, r#" {name}="{value}""#);
    }
    if inside.is_empty() {
        out.push_str("/>");
    } else {
        let _ = write!(out, ">{inside}</{}>", element.tag);
    }
}

/// Each traced point's path as it accumulates: a segment per frame, from the point's
/// position at the frame before, hidden until the body's animation (linear between frames,
/// frame `i` at `i / (n − 1)` of the loop) reaches it. Segments keep the file linear in
/// the frames, where a polyline would have to repeat every past point in every frame.
fn traces(out: &mut String, world: &World, frames: &[Frame], seconds: f32) {
    let last = frames.len().saturating_sub(1);
    for t in 0..world.traces().len() {
        for i in 1..=last {
            let (from, to) = (frames[i - 1].traced[t], frames[i].traced[t]);
            if point(from) == point(to) {
                continue; // The point did not move, in the picture's precision.
            }
            let mut segment = line("trace", from, to);
            segment.attributes.push(("visibility", "hidden".to_owned()));
            let appear = format!(
                r#"<animate attributeName="visibility" calcMode="discrete" dur="{}s" repeatCount="indefinite" keyTimes="0;{:.5}" values="hidden;visible"/>"#,
                num(seconds),
                i as f32 / last as f32
            );
            write_element(out, &segment, &appear);
        }
    }
}

/// Every joint element, animated attribute by attribute; an element missing from some
/// frames (a joint that changed its picture) is hidden in those.
fn joints(out: &mut String, frames: &[Frame], seconds: f32) {
    type Key = (usize, usize);
    let mut tracks: BTreeMap<Key, Vec<Option<Element>>> = BTreeMap::new();
    for (f, frame) in frames.iter().enumerate() {
        for (j, picture) in frame.joints.iter().enumerate() {
            let all = picture.iter().flat_map(elements);
            for (k, element) in all.enumerate() {
                tracks
                    .entry((j, k))
                    .or_insert_with(|| vec![None; frames.len()])[f] = Some(element);
            }
        }
    }
    for track in tracks.values() {
        let Some(first) = track.iter().flatten().next() else {
            continue;
        };
        let same_kind = |e: &Element| {
            e.tag == first.tag
                && e.class == first.class
                && e.attributes.len() == first.attributes.len()
        };
        let fits = |e: &Option<Element>| e.as_ref().is_some_and(same_kind);
        let _ = write!(out, r#"<{} class="{}""#, first.tag, first.class);
        for (name, value) in &first.attributes {
            let _ = write!(out, r#" {name}="{value}""#);
        }
        out.push('>');
        for (i, (name, value)) in first.attributes.iter().enumerate() {
            let values: Vec<String> = track
                .iter()
                .map(|e| match e {
                    Some(e) if same_kind(e) => e.attributes[i].1.clone(),
                    _ => value.clone(),
                })
                .collect();
            if values.iter().any(|v| v != value) {
                animate(out, name, &values, seconds);
            }
        }
        if !track.iter().all(fits) {
            let visibility: Vec<String> = track
                .iter()
                .map(|e| if fits(e) { "visible" } else { "hidden" }.to_owned())
                .collect();
            let _ = write!(
                out,
                r#"<animate attributeName="visibility" calcMode="discrete" dur="{}s" repeatCount="indefinite" values="{}"/>"#,
                num(seconds),
                visibility.join(";")
            );
        }
        let _ = write!(out, "</{}>", first.tag);
    }
}

/// A plot of the worst position error (log scale) and the energy over the frames' times.
#[must_use]
pub fn plot(frames: &[Frame]) -> String {
    let (width, panel, margin) = (360.0f32, 90.0f32, 44.0f32);
    let end = frames.last().map_or(1.0, |f| f.time).max(1e-3);
    let x = |t: f32| margin + (width - margin - 8.0) * t / end;
    let mut out = String::new();
    let _ = write!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" width="{w}" height="{h}" font-family="sans-serif" font-size="10">"#,
        w = num(width),
        h = num(2.0 * panel + 30.0)
    );
    out.push_str(r##"<rect width="100%" height="100%" fill="#fff"/>"##);

    // Errors of 0 (exactly satisfied) sit on the floor of the log scale.
    let floor = -9.0f32;
    let logs: Vec<f32> = frames
        .iter()
        .map(|f| f.error.max(1e-9).log10().max(floor))
        .collect();
    let ceiling = logs.iter().copied().fold(-3.0f32, f32::max).ceil();
    let worst = frames.iter().map(|f| f.error).fold(0.0f32, f32::max);
    let top = 14.0;
    let y_error = |l: f32| top + panel - 16.0 - (panel - 20.0) * (l - floor) / (ceiling - floor);
    let energies: Vec<f32> = frames.iter().map(|f| f.energy).collect();
    let (low, high) = energies
        .iter()
        .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), &e| {
            (lo.min(e), hi.max(e))
        });
    let span = (high - low).max(1e-6);
    let top2 = top + panel + 14.0;
    let y_energy = |e: f32| top2 + panel - 16.0 - (panel - 20.0) * (e - low) / span;

    let _ = write!(
        out,
        r##"<text x="{margin}" y="10">worst position error (log scale), max {worst:.2e}</text>"##
    );
    for (label, l) in [
        (format!("1e{ceiling}"), ceiling),
        ("1e-9".to_owned(), floor),
    ] {
        let _ = write!(
            out,
            r##"<text x="{}" y="{}" text-anchor="end">{label}</text><line x1="{margin}" x2="{}" y1="{y}" y2="{y}" stroke="#ddd"/>"##,
            num(margin - 3.0),
            num(y_error(l) + 3.0),
            num(width - 8.0),
            y = num(y_error(l))
        );
    }
    polyline(
        &mut out,
        frames
            .iter()
            .zip(&logs)
            .map(|(f, &l)| (x(f.time), y_error(l))),
        "#d0312d",
    );
    let _ = write!(
        out,
        r##"<text x="{margin}" y="{}">energy (J), {low:.3} to {high:.3}</text>"##,
        num(top2 - 4.0)
    );
    polyline(
        &mut out,
        frames
            .iter()
            .zip(&energies)
            .map(|(f, &e)| (x(f.time), y_energy(e))),
        "#1a3d7c",
    );
    let _ = write!(
        out,
        r##"<text x="{}" y="{}" text-anchor="end">{end:.1} s</text></svg>"##,
        num(width - 8.0),
        num(2.0 * panel + 28.0)
    );
    out.push('\n');
    out
}

fn polyline(out: &mut String, points: impl Iterator<Item = (f32, f32)>, colour: &str) {
    let points: Vec<String> = points
        .map(|(x, y)| format!("{},{}", num(x), num(y)))
        .collect();
    let _ = write!(
        out,
        r#"<polyline fill="none" stroke="{colour}" stroke-width="1.2" points="{}"/>"#,
        points.join(" ")
    );
}
