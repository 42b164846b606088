//! Generated sections that a document carries between marker lines of their own, under a
//! heading: RESULTS.md holds the full run's report and, after it, the sections of
//! `--trajectories` and `--curve`, each rewritten by its own mode and kept by the others.

use std::fmt::Write as _;

use crate::report::{marked_range, replace_between};

/// One generated section's heading and marker lines.
#[derive(Clone, Copy, Debug)]
pub struct MarkedSection {
    /// The heading the section gets in a document that had no markers for it.
    pub heading: &'static str,
    /// The line before the generated text.
    pub begin: &'static str,
    /// The line after it.
    pub end: &'static str,
}

impl MarkedSection {
    /// `document` with `section` between its markers; a document without them gets them,
    /// under the heading, at its end when `append` is set, and is an error otherwise.
    pub fn place(&self, document: &str, section: &str, append: bool) -> Result<String, String> {
        if append && marked_range(document, self.begin, self.end).is_none() {
            return Ok(self.append(document, section));
        }
        replace_between(document, self.begin, self.end, section)
    }

    /// `document` with the heading and `section` between new markers at its end.
    fn append(&self, document: &str, section: &str) -> String {
        let mut out = document.trim_end().to_owned();
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        let _ = writeln!(
            out,
            "{}\n\n{}\n\n{}\n{}",
            self.heading,
            self.begin,
            section.trim_end(),
            self.end
        );
        out
    }

    /// `rewritten` (a document generated without this section) with `old`'s section
    /// appended, if `old` had one: a mode that rewrites RESULTS.md keeps what the other
    /// modes wrote there.
    pub fn carry(&self, old: &str, rewritten: &str) -> String {
        match marked_range(old, self.begin, self.end) {
            Some((after_begin, end_at)) => self.append(rewritten, old[after_begin..end_at].trim()),
            None => rewritten.to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECTION: MarkedSection = MarkedSection {
        heading: "## Generated",
        begin: "<!-- generated:begin -->",
        end: "<!-- generated:end -->",
    };

    #[test]
    fn a_section_is_appended_once_then_replaced_and_survives_a_rewrite() {
        let first = SECTION.place("# RESULTS\n\ntable\n", "one", true).unwrap();
        assert!(first.starts_with("# RESULTS\n\ntable\n\n## "), "{first}");
        assert!(first.contains("<!-- generated:begin -->\n\none\n<!-- generated:end -->"));
        let second = SECTION.place(&first, "two", true).unwrap();
        assert!(second.contains("two") && !second.contains("one"));
        assert_eq!(second.matches(SECTION.heading).count(), 1);
        assert!(
            SECTION
                .place("# README without markers", "x", false)
                .is_err()
        );

        let rewritten = SECTION.carry(&second, "# RESULTS\n\nnew table\n");
        assert!(rewritten.starts_with("# RESULTS\n\nnew table\n"));
        assert!(
            rewritten.contains(
                "## Generated\n\n<!-- generated:begin -->\n\ntwo\n<!-- generated:end -->"
            )
        );
        assert_eq!(SECTION.carry("no section", "fresh"), "fresh");
    }
}
