//! Every SVG the gallery writes (and the README's committed picture) is well-formed XML
//! with an `<svg>` root in the SVG namespace; every animation animates.

use std::path::{Path, PathBuf};

use nape_gallery::SCENES;
use nape_gallery::cli::{Options, write_gallery};

const SVG: &str = "http://www.w3.org/2000/svg";

fn check(path: &Path) -> roxmltree::Document<'static> {
    let text = std::fs::read_to_string(path).unwrap();
    let text: &'static str = Box::leak(text.into_boxed_str());
    let document = roxmltree::Document::parse(text)
        .unwrap_or_else(|e| panic!("{} is not well-formed XML: {e}", path.display()));
    let root = document.root_element();
    assert_eq!(root.tag_name().name(), "svg", "{}", path.display());
    assert_eq!(root.tag_name().namespace(), Some(SVG), "{}", path.display());
    document
}

fn animations(document: &roxmltree::Document<'_>) -> usize {
    document
        .descendants()
        .filter(|n| matches!(n.tag_name().name(), "animate" | "animateTransform"))
        .count()
}

#[test]
fn every_gallery_svg_parses_and_every_animation_animates() {
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("gallery-xml");
    let options = Options {
        out: out.clone(),
        seconds: 1.0,
        scenes: SCENES.iter().collect(),
    };
    let summaries = write_gallery(&options, &mut std::io::sink()).unwrap();
    assert_eq!(summaries.len(), SCENES.len());
    let mut parsed = 0;
    for scene in SCENES {
        let animation = check(&out.join(format!("{}.svg", scene.name)));
        assert!(
            animations(&animation) > 0,
            "{} does not animate",
            scene.name
        );
        let classes = |class: &str| {
            animation
                .descendants()
                .filter(|n| n.attribute("class") == Some(class))
                .count()
        };
        let world = (scene.build)().unwrap();
        let (traced, ideals) = (
            world.traces().len(),
            world.traces().iter().filter(|t| t.ideal.is_some()).count(),
        );
        assert_eq!(classes("ideal"), ideals, "{}: the ideal paths", scene.name);
        assert!(
            (classes("trace") > 0) == (traced > 0),
            "{}: a trace is drawn iff the scene traces a point",
            scene.name
        );
        let plot = check(&out.join(format!("{}-plot.svg", scene.name)));
        assert_eq!(
            plot.descendants()
                .filter(|n| n.has_tag_name((SVG, "polyline")))
                .count(),
            2,
            "{}: the error and the energy",
            scene.name
        );
        parsed += 2;
    }
    let files = std::fs::read_dir(&out)
        .unwrap()
        .filter(|f| {
            f.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|e| e == "svg")
        })
        .count();
    assert_eq!(parsed, files, "an SVG the test does not know about");
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    for scene in SCENES {
        assert!(index.contains(&format!("src=\"{}.svg\"", scene.name)));
    }
}

#[test]
fn the_readme_picture_parses_and_animates() {
    let picture = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/gallery.svg");
    let document = check(&picture);
    assert!(animations(&document) > 0);
}
