//! What the bench's plots draw alike: the document, a row of panels under a legend, each
//! panel's frame, title and axis titles.

use std::fmt::Write as _;

/// Sizes of a row of equal panels under a one-line legend, in SVG units.
pub struct Layout {
    /// One panel's width.
    pub panel_width: f64,
    /// One panel's height, below the legend.
    pub panel_height: f64,
    /// Room left of the plotting area (tick labels, the y title).
    pub margin_left: f64,
    /// Room right of the plotting area.
    pub margin_right: f64,
    /// Room above the plotting area (the panel's title).
    pub margin_top: f64,
    /// Room below the plotting area (tick labels, the x title).
    pub margin_bottom: f64,
    /// The legend's height above every panel.
    pub legend_height: f64,
}

/// One panel's plotting area.
#[derive(Clone, Copy, Debug)]
pub struct Frame {
    /// The panel's own left edge (its margin included).
    pub origin_x: f64,
    /// The plotting area's left edge.
    pub left: f64,
    /// Its right edge.
    pub right: f64,
    /// Its top edge.
    pub top: f64,
    /// Its bottom edge.
    pub bottom: f64,
}

impl Layout {
    /// The opening of an SVG document holding `panels` panels, on a white background.
    pub fn document_start(&self, panels: usize) -> String {
        let width = self.panel_width * panels as f64;
        let height = self.panel_height + self.legend_height;
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
             viewBox=\"0 0 {width} {height}\" font-family=\"sans-serif\" font-size=\"11\">\n\
             <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        )
    }

    /// Panel `index`'s plotting area.
    pub fn frame(&self, index: usize) -> Frame {
        let origin_x = self.panel_width * index as f64;
        Frame {
            origin_x,
            left: origin_x + self.margin_left,
            right: origin_x + self.panel_width - self.margin_right,
            top: self.legend_height + self.margin_top,
            bottom: self.legend_height + self.panel_height - self.margin_bottom,
        }
    }
}

impl Frame {
    /// The plotting area's left, right, top and bottom edges.
    pub fn edges(&self) -> (f64, f64, f64, f64) {
        (self.left, self.right, self.top, self.bottom)
    }

    /// The panel's bold title above its plotting area and the area's border.
    pub fn draw(&self, svg: &mut String, title: &str) {
        let _ = writeln!(
            svg,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"13\" font-weight=\"bold\">{}</text>\
             <rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#444\"/>",
            (self.left + self.right) / 2.0,
            self.top - 10.0,
            escape(title),
            self.left,
            self.top,
            self.right - self.left,
            self.bottom - self.top
        );
    }

    /// `x_title` centred `x_below` under the plotting area, `y_title` turned upright
    /// `y_inset` from the panel's left edge.
    pub fn axis_titles(
        &self,
        svg: &mut String,
        x_title: &str,
        x_below: f64,
        y_title: &str,
        y_inset: f64,
    ) {
        let (y_x, y_y) = (self.origin_x + y_inset, (self.top + self.bottom) / 2.0);
        let _ = writeln!(
            svg,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\
             <text x=\"{y_x}\" y=\"{y_y}\" text-anchor=\"middle\" transform=\"rotate(-90 {y_x} {y_y})\">{}</text>",
            (self.left + self.right) / 2.0,
            self.bottom + x_below,
            escape(x_title),
            escape(y_title),
        );
    }
}

impl Frame {
    /// Grid lines and labels at each decade `x.0..=x.1` and `y.0..=y.1` of logarithmic
    /// axes spanning the plotting area.
    pub fn log_grid(&self, svg: &mut String, x: (i32, i32), y: (i32, i32)) {
        let (left, right, top, bottom) = self.edges();
        for decade in x.0..=x.1 {
            let at = left + f64::from(decade - x.0) / f64::from(x.1 - x.0) * (right - left);
            let _ = writeln!(
                svg,
                "<line x1=\"{at:.1}\" y1=\"{top}\" x2=\"{at:.1}\" y2=\"{bottom}\" stroke=\"#ddd\"/>\
                 <text x=\"{at:.1}\" y=\"{}\" text-anchor=\"middle\">1e{decade}</text>",
                bottom + 15.0
            );
        }
        for decade in y.0..=y.1 {
            let at = bottom - f64::from(decade - y.0) / f64::from(y.1 - y.0) * (bottom - top);
            let _ = writeln!(
                svg,
                "<line x1=\"{left}\" y1=\"{at:.1}\" x2=\"{right}\" y2=\"{at:.1}\" stroke=\"#ddd\"/>\
                 <text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">1e{decade}</text>",
                left - 5.0,
                at + 4.0
            );
        }
    }
}

/// `text` with the characters XML reserves escaped.
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
