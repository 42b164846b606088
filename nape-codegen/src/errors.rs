//! Collecting every error of one expansion, and "did you mean" suggestions.

/// The errors found so far; reported together so one compile shows every mistake.
#[derive(Default)]
pub struct Errors {
    list: Vec<syn::Error>,
}

impl Errors {
    /// Records an error.
    pub fn push(&mut self, error: syn::Error) {
        self.list.push(error);
    }

    /// Whether nothing went wrong.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// All errors as one (each keeps its own span), or `None`.
    pub fn combined(self) -> Option<syn::Error> {
        self.list.into_iter().reduce(|mut all, next| {
            all.combine(next);
            all
        })
    }
}

/// The candidate closest to `name` by edit distance, if it is close enough to be a typo.
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (name.chars().count() / 3).max(1);
    candidates
        .into_iter()
        .map(|candidate| (edit_distance(name, candidate), candidate))
        .filter(|&(distance, _)| distance <= limit)
        .min_by_key(|&(distance, candidate)| (distance, candidate))
        .map(|(_, candidate)| candidate)
}

/// Edit distance over chars where swapping two neighbours counts as one edit (the
/// optimal string alignment distance), so `angel` is one edit from `angle`.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut table = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in table.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in table[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (table[i - 1][j] + 1)
                .min(table[i][j - 1] + 1)
                .min(table[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(table[i - 2][j - 2] + 1);
            }
            table[i][j] = best;
        }
    }
    table[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_near_names_only() {
        let names = ["position", "angle", "velocity"];
        assert_eq!(closest("positon", names), Some("position"));
        assert_eq!(closest("angel", names), Some("angle"));
        assert_eq!(closest("mass", names), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }
}
