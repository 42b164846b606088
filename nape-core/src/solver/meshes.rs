//! Which swept islands (meshes) hold a limit.
//!
//! A swept stiff row is a spring of the soft step, so its anchors stand apart by its
//! load over its stiffness, and its impulse, a pair of forces at two points a gap apart,
//! turns the island by `gap × f`. Under a mesh's own loads that gap lies along the force
//! and turns little (a spinning loop of four rods keeps its angular momentum within 1e-5
//! in 10 s); a limit's blow loads its neighbours across their gap (the spinning pair with a
//! stiff angle limit lost 2.1e-4 in 10 s, with a soft distance limit 4.0e-4). The stiff
//! entries of a mesh that holds a limit therefore sweep through their damper's rows
//! `J_d = J − g wᵀ` as springs do (`RigidSpin`), whose impulses turn no island; the others
//! (a joint grid's) keep their plain loop, which reads no spin.

/// Union–find over the bodies of the swept entries, each set marked if one of its
/// entries has limits.
pub(crate) struct Meshes {
    parent: Vec<u32>,
    limited: Vec<bool>,
}

impl Meshes {
    /// `bodies` body slots, each its own mesh without a limit.
    pub(crate) fn new(bodies: usize) -> Self {
        Self {
            parent: (0..bodies as u32).collect(),
            limited: vec![false; bodies],
        }
    }

    fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let up = self.parent[self.parent[x as usize] as usize];
            self.parent[x as usize] = up;
            x = up;
        }
        x
    }

    /// Joins the meshes of an entry's dynamic bodies (`dynamic` says which are), and marks
    /// the result if the entry has limits.
    pub(crate) fn join(&mut self, bodies: &[usize], dynamic: &[bool], limited: bool) {
        let mut root = None;
        for &b in bodies.iter().filter(|&&b| dynamic[b]) {
            let r = self.find(b as u32);
            let joined = match root {
                None => r,
                Some(first) => {
                    self.parent[r as usize] = first;
                    self.limited[first as usize] |= self.limited[r as usize];
                    first
                }
            };
            root = Some(joined);
        }
        if let Some(r) = root {
            self.limited[r as usize] |= limited;
        }
    }

    /// For each body, whether its mesh holds a limit.
    pub(crate) fn limited_bodies(mut self) -> Vec<bool> {
        (0..self.parent.len() as u32)
            .map(|b| {
                let r = self.find(b);
                self.limited[r as usize]
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_limit_marks_every_body_of_its_mesh_and_no_other() {
        let dynamic = [true, true, true, true, false, true, true];
        let mut meshes = Meshes::new(dynamic.len());
        meshes.join(&[0, 1], &dynamic, false);
        meshes.join(&[2, 3], &dynamic, false);
        // Body 4 is static: it joins nothing.
        meshes.join(&[3, 4], &dynamic, false);
        meshes.join(&[4, 5], &dynamic, false);
        meshes.join(&[1, 2], &dynamic, true);
        meshes.join(&[5, 6], &dynamic, false);
        assert_eq!(
            meshes.limited_bodies(),
            [true, true, true, true, false, false, false]
        );
    }
}
