//! The gallery's scenes for the interactive page: plain WebAssembly exports that a
//! hand-written `www/app.js` calls to step a scene, read what to draw and drag bodies,
//! and the joint editor: after the gallery's scenes comes one more, the workbench
//! (`nape_gallery::workbench`), whose joint is the text the page applies.
//!
//! Text goes both ways through memory: [`text_ptr`] and [`text_len`] locate a string the
//! module holds (a [`Text`] kind), and the page writes its text into the buffer
//! [`source_buffer`] returns before calling [`apply_source`].
//!
//! Exported symbols need `#[unsafe(no_mangle)]` (edition 2024's spelling of `#[no_mangle]`):
//! it promises that no other symbol of the module has the same name, which holds for
//! these distinct names. No other unsafe code is used.
//!
//! Everything is drawn from one flat `f32` buffer that [`frame`] fills and [`frame_ptr`]
//! locates. Each record starts with a tag:
//!
//! | tag | record |
//! | --- | --- |
//! | 1 | circle: x, y, angle, radius, dynamic |
//! | 2 | ellipse: x, y, angle, rx, ry, dynamic |
//! | 3 | rectangle: x, y, angle, half width, half height, dynamic |
//! | 4 | polygon: x, y, angle, dynamic, n, then n local vertices (x, y) |
//! | 5 | hook: x, y |
//! | 10 | anchor: x, y |
//! | 11 | segment: x1, y1, x2, y2, style (0 rigid, 1 rope, 2 link) |
//! | 12 | axis: x1, y1, x2, y2 (the drawn extent), finite min end (0/1), finite max end (0/1) |
//! | 13 | arc: cx, cy, radius, start, end |
//! | 14 | ideal path of a trace: x1, y1, x2, y2 |
//! | 15 | trace: n, then n past positions (x, y), oldest first |
//! | 20 | mouse: grip x, grip y, target x, target y |

use std::cell::RefCell;

use nape::Vec2;
use nape::draw::{DrawPrimitive, SegmentStyle};
use nape_gallery::workbench::{self, EXAMPLES};
use nape_gallery::{SCENES, Shape, World};

struct App {
    scene: usize,
    world: Option<World>,
    buffer: Vec<f32>,
    /// The joint source of the scene running: its declarations, or the applied text.
    source: String,
    /// The text last applied, which the workbench runs when picked again.
    applied: Option<String>,
    /// The text the page writes before [`apply_source`].
    incoming: Vec<u8>,
    /// Why the last text applied was refused, and where in it (bytes).
    error: Option<workbench::EditError>,
}

thread_local! {
    static APP: RefCell<App> = const {
        RefCell::new(App {
            scene: 0,
            world: None,
            buffer: Vec::new(),
            source: String::new(),
            applied: None,
            incoming: Vec::new(),
            error: None,
        })
    };
}

/// The workbench's index: after the gallery's scenes.
const WORKBENCH: usize = SCENES.len();

/// Number of scenes, the workbench included.
#[unsafe(no_mangle)]
pub extern "C" fn scene_count() -> u32 {
    SCENES.len() as u32 + 1
}

/// The strings [`text_ptr`] and [`text_len`] locate.
#[repr(u32)]
pub enum Text {
    /// The joint source of the scene running.
    Source = 0,
    /// The message of the last refused text (empty after a success).
    Error = 1,
    /// Example `i`'s title.
    ExampleTitle = 2,
    /// Example `i`'s text.
    Example = 3,
}

fn with_text<R>(kind: u32, i: u32, f: impl FnOnce(&str) -> R) -> R {
    APP.with_borrow(|app| {
        let example = EXAMPLES.get(i as usize);
        let text = match kind {
            k if k == Text::Source as u32 => app.source.as_str(),
            k if k == Text::Error as u32 => app.error.as_ref().map_or("", |e| e.message.as_str()),
            k if k == Text::ExampleTitle as u32 => example.map_or("", |e| e.0),
            k if k == Text::Example as u32 => example.map_or("", |e| e.1),
            _ => "",
        };
        f(text)
    })
}

/// Address of a [`Text`] (`i` picks the example).
#[unsafe(no_mangle)]
pub extern "C" fn text_ptr(kind: u32, i: u32) -> *const u8 {
    with_text(kind, i, str::as_ptr)
}

/// Length in bytes of a [`Text`].
#[unsafe(no_mangle)]
pub extern "C" fn text_len(kind: u32, i: u32) -> u32 {
    with_text(kind, i, |t| t.len() as u32)
}

/// Number of example texts.
#[unsafe(no_mangle)]
pub extern "C" fn example_count() -> u32 {
    EXAMPLES.len() as u32
}

/// A buffer of `len` bytes for the page to write a text into.
#[unsafe(no_mangle)]
pub extern "C" fn source_buffer(len: u32) -> *mut u8 {
    APP.with_borrow_mut(|app| {
        app.incoming.clear();
        app.incoming.resize(len as usize, 0);
        app.incoming.as_mut_ptr()
    })
}

/// Makes the text in the buffer the workbench's joint and runs the workbench from its
/// start; returns 1. On a mistake returns 0 and keeps the scene running as it was: the
/// message is [`Text::Error`], its span [`error_span`].
#[unsafe(no_mangle)]
pub extern "C" fn apply_source() -> u32 {
    APP.with_borrow_mut(|app| {
        let text = String::from_utf8_lossy(&app.incoming).into_owned();
        match workbench::build(&text) {
            Ok(world) => {
                app.scene = WORKBENCH;
                app.world = Some(world);
                app.source = text.clone();
                app.applied = Some(text);
                app.error = None;
                1
            }
            Err(error) => {
                app.error = Some(error);
                0
            }
        }
    })
}

/// The refused text's span in bytes: 0 = start, 1 = end (both 0 for the text as a whole).
#[unsafe(no_mangle)]
pub extern "C" fn error_span(end: u32) -> u32 {
    APP.with_borrow(|app| {
        let range = app.error.as_ref().map_or(0..0, |e| e.range.clone());
        (if end == 0 { range.start } else { range.end }) as u32
    })
}

/// The workbench's title.
const WORKBENCH_TITLE: &str = "Your joint: edit its text below";

fn scene_title(i: u32) -> Option<&'static str> {
    match SCENES.get(i as usize) {
        Some(scene) => Some(scene.title),
        None => (i as usize == WORKBENCH).then_some(WORKBENCH_TITLE),
    }
}

/// Address of scene `i`'s title (UTF-8), or null if there is no such scene.
#[unsafe(no_mangle)]
pub extern "C" fn scene_title_ptr(i: u32) -> *const u8 {
    scene_title(i).map_or(std::ptr::null(), str::as_ptr)
}

/// Length in bytes of scene `i`'s title.
#[unsafe(no_mangle)]
pub extern "C" fn scene_title_len(i: u32) -> u32 {
    scene_title(i).map_or(0, |t| t.len() as u32)
}

/// Builds scene `i` afresh (also the page's reset); returns 1 on success. The workbench
/// starts again with the text last applied (at first, the first example).
#[unsafe(no_mangle)]
pub extern "C" fn load(i: u32) -> u32 {
    let i = i as usize;
    let (built, source) = if let Some(scene) = SCENES.get(i) {
        ((scene.build)().ok(), scene.joint_source())
    } else if i == WORKBENCH {
        let applied = APP.with_borrow(|app| app.applied.clone());
        let source = applied.unwrap_or_else(|| EXAMPLES[0].1.to_owned());
        (workbench::build(&source).ok(), source)
    } else {
        return 0;
    };
    let Some(world) = built else {
        return 0;
    };
    APP.with_borrow_mut(|app| {
        app.scene = i;
        app.world = Some(world);
        app.source = source;
        app.error = None;
    });
    1
}

/// The scene last loaded.
#[unsafe(no_mangle)]
pub extern "C" fn current_scene() -> u32 {
    APP.with_borrow(|app| app.scene as u32)
}

/// Advances the scene by `dt` seconds.
#[unsafe(no_mangle)]
pub extern "C" fn step(dt: f32) {
    APP.with_borrow_mut(|app| {
        if let Some(world) = &mut app.world {
            world.step(dt);
        }
    });
}

/// The worst position error of the scene's joints (the mouse's soft joint not included).
#[unsafe(no_mangle)]
pub extern "C" fn worst_error() -> f32 {
    APP.with_borrow(|app| app.world.as_ref().map_or(0.0, World::worst_violation))
}

/// One corner of the world rectangle the scene shows: 0, 1 = low x, y; 2, 3 = high x, y.
#[unsafe(no_mangle)]
pub extern "C" fn view(corner: u32) -> f32 {
    APP.with_borrow(|app| {
        app.world.as_ref().map_or(0.0, |w| {
            let (low, high) = w.view;
            [low.x, low.y, high.x, high.y]
                .get(corner as usize)
                .copied()
                .unwrap_or(0.0)
        })
    })
}

/// Grabs the dynamic body under the world point (x, y); returns 1 if there was one.
#[unsafe(no_mangle)]
pub extern "C" fn mouse_down(x: f32, y: f32) -> u32 {
    with_world(|w| w.grab(Vec2::new(x, y)).unwrap_or(false) as u32)
}

/// Moves the mouse to the world point (x, y).
#[unsafe(no_mangle)]
pub extern "C" fn mouse_move(x: f32, y: f32) {
    with_world(|w| {
        // A failed update leaves the previous target, which is harmless for one frame.
        let _ = w.drag_to(Vec2::new(x, y));
    });
}

/// Lets go.
#[unsafe(no_mangle)]
pub extern "C" fn mouse_up() {
    with_world(|w| {
        let _ = w.release();
    });
}

/// Fills the drawing buffer (see the crate docs) and returns its length in `f32`s.
#[unsafe(no_mangle)]
pub extern "C" fn frame() -> u32 {
    APP.with_borrow_mut(|app| {
        let App { world, buffer, .. } = app;
        buffer.clear();
        if let Some(world) = world {
            encode(world, buffer);
        }
        buffer.len() as u32
    })
}

/// Address of the drawing buffer [`frame`] filled.
#[unsafe(no_mangle)]
pub extern "C" fn frame_ptr() -> *const f32 {
    APP.with_borrow(|app| app.buffer.as_ptr())
}

fn with_world<R: Default>(f: impl FnOnce(&mut World) -> R) -> R {
    APP.with_borrow_mut(|app| app.world.as_mut().map(f).unwrap_or_default())
}

fn flag(b: bool) -> f32 {
    if b { 1.0 } else { 0.0 }
}

fn encode(world: &World, out: &mut Vec<f32>) {
    // The ideal paths under the bodies, the traces over everything, as in the gallery's SVGs.
    for (from, to) in world.traces().iter().filter_map(|t| t.ideal) {
        out.extend([14.0, from.x, from.y, to.x, to.y]);
    }
    for drawn in &world.bodies {
        let pose = world.pose(drawn.handle);
        // The drawing needs the rotation only: its principal angle, exact at any winding.
        let (x, y, a) = (pose.position.x, pose.position.y, pose.principal_angle());
        let dynamic = flag(drawn.dynamic);
        match &drawn.shape {
            Shape::Circle { radius } => out.extend([1.0, x, y, a, *radius, dynamic]),
            Shape::Ellipse { radii } => out.extend([2.0, x, y, a, radii.x, radii.y, dynamic]),
            Shape::Rectangle { half } => out.extend([3.0, x, y, a, half.x, half.y, dynamic]),
            Shape::Polygon { vertices } => {
                out.extend([4.0, x, y, a, dynamic, vertices.len() as f32]);
                out.extend(vertices.iter().flat_map(|v| [v.x, v.y]));
            }
            Shape::Hook => out.extend([5.0, x, y]),
        }
    }
    for picture in world.joint_pictures() {
        for primitive in picture {
            match primitive {
                DrawPrimitive::Anchor { at } => out.extend([10.0, at.x, at.y]),
                DrawPrimitive::Segment { from, to, style } => {
                    let style = match style {
                        SegmentStyle::Rigid => 0.0,
                        SegmentStyle::Rope => 1.0,
                        SegmentStyle::Link => 2.0,
                    };
                    out.extend([11.0, from.x, from.y, to.x, to.y, style]);
                }
                DrawPrimitive::Axis {
                    origin,
                    direction,
                    min,
                    max,
                } => {
                    let (a, b) = (
                        origin + min.clamp(-50.0, 50.0) * direction,
                        origin + max.clamp(-50.0, 50.0) * direction,
                    );
                    out.extend([
                        12.0,
                        a.x,
                        a.y,
                        b.x,
                        b.y,
                        flag(min.is_finite()),
                        flag(max.is_finite()),
                    ]);
                }
                DrawPrimitive::Arc {
                    centre,
                    radius,
                    start,
                    end,
                } => out.extend([13.0, centre.x, centre.y, radius, start, end]),
            }
        }
    }
    for trace in world.traces() {
        let past = trace.past();
        out.extend([15.0, past.len() as f32]);
        out.extend(past.flat_map(|p| [p.x, p.y]));
    }
    if let Some((_, grip, target)) = world.grabbed() {
        out.extend([20.0, grip.x, grip.y, target.x, target.y]);
    }
}
