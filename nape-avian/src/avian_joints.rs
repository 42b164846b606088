//! Avian's own joints solved by nape ([`AvianJointsPlugin`], opt-in): each
//! `RevoluteJoint`, `FixedJoint`, `PrismaticJoint` and `DistanceJoint` gets child
//! entities holding the nape builtins that say the same, kept equal to it every step.
//!
//! | Avian | nape |
//! | --- | --- |
//! | `RevoluteJoint` | `PivotJoint`, an `AngleJoint` for `angle_limit`, an `AngleJoint` or a `MotorJoint` for `motor` |
//! | `FixedJoint` | `WeldJoint` |
//! | `PrismaticJoint` | `LineJoint` along `basis1 · slider_axis` with `limits`, an `AngleJoint` holding the bases aligned, a [`SlideTarget`] or [`SlideMotor`] for `motor` |
//! | `DistanceJoint` | `DistanceJoint` with `limits` |
//!
//! Compliance `α` becomes a soft row of stiffness `1/α` over the bodies' reduced mass;
//! `α = 0` is stiff. Angle limits are on wound angles, so they may exceed ±π. A motor with
//! a stiffness (every `SpringDamper`, the other models with `stiffness > 0`) is a soft row
//! holding the joint's angle (`AngleJoint`) or position along the axis ([`SlideTarget`])
//! at a target that folds in `target_velocity` (see [`crate::motors`]); one without is a
//! velocity motor (`MotorJoint`, [`SlideMotor`]) that reaches `target_velocity` within a
//! substep, where Avian's approaches it at the rate `damping`. Both are bounded by
//! `max_torque` or `max_force`. A revolute motor's target angle is wound, where Avian takes
//! the shortest way round.

use avian2d::dynamics::joints::JointSystems;
use avian2d::prelude::{
    ComputedAngularInertia, ComputedCenterOfMass, ComputedMass, DistanceJoint as AvianDistance,
    FixedJoint, JointDisabled, PhysicsSchedule, PrismaticJoint, RevoluteJoint, SolverSystems,
};
use bevy::prelude::*;
use nape::{
    AngleJoint, Constraint, ConstraintSettings, DistanceJoint, LineJoint, MotorJoint, PivotJoint,
    Vec2, WeldJoint,
};

use crate::body_access::{to_f32, to_nape};
use crate::motors::{AvianMotor, Drive, SlideMotor, SlideTarget};
use crate::{NapeJoint, NapeJointSystems, NapeJointsAppExt, slots};

/// Solves Avian's `RevoluteJoint`, `FixedJoint`, `PrismaticJoint` and `DistanceJoint`
/// with nape (needs [`NapeJointsPlugin`](crate::NapeJointsPlugin)). Build Avian without
/// its `xpbd_joints` feature (or disable its `XpbdSolverPlugin`), or both solve them.
pub struct AvianJointsPlugin;

/// The nape joints standing for an Avian joint, children of its entity.
#[derive(Component, Clone, Copy, Debug)]
pub struct NapeMirror(pub [Entity; 3]);

impl Plugin for AvianJointsPlugin {
    fn build(&self, app: &mut App) {
        app.add_nape_joint::<SlideTarget, _, _>()
            .add_nape_joint::<SlideMotor, _, _>();
        app.add_systems(
            PhysicsSchedule,
            (
                mirror::<RevoluteJoint>,
                mirror::<FixedJoint>,
                mirror::<PrismaticJoint>,
                mirror::<AvianDistance>,
            )
                .chain()
                .in_set(SolverSystems::PrepareJoints)
                .after(JointSystems::PrepareLocalFrames)
                .before(NapeJointSystems::Prepare),
        );
    }
}

/// The bodies' centres of mass (local), reduced mass and reduced angular inertia, for
/// converting anchors, compliances and force-based motor gains.
struct Bodies {
    centres: [Vec2; 2],
    reduced_mass: f32,
    reduced_inertia: f32,
}

/// What one Avian joint type becomes.
trait Mirrored: Component + Sized {
    fn bodies(&self) -> [Entity; 2];
    /// The nape joints, or `None` while Avian has not resolved the joint's local frames.
    fn nape(&self, bodies: &Bodies) -> Option<[Mirror; 3]>;
}

/// One nape joint standing for (part of) an Avian joint; `Off` keeps the slot inactive.
enum Mirror {
    Pivot(PivotJoint, ConstraintSettings),
    Weld(WeldJoint, ConstraintSettings),
    Angle(AngleJoint, ConstraintSettings),
    Motor(MotorJoint, ConstraintSettings),
    Line(LineJoint, ConstraintSettings),
    Distance(DistanceJoint, ConstraintSettings),
    SlideTarget(SlideTarget, ConstraintSettings),
    SlideMotor(SlideMotor, ConstraintSettings),
    Off,
}

impl Mirror {
    /// The position of the variant's query in [`MirrorQueries`]; `None` for `Off`.
    fn kind(&self) -> Option<usize> {
        Some(match self {
            Self::Pivot(..) => 0,
            Self::Weld(..) => 1,
            Self::Angle(..) => 2,
            Self::Motor(..) => 3,
            Self::Line(..) => 4,
            Self::Distance(..) => 5,
            Self::SlideTarget(..) => 6,
            Self::SlideMotor(..) => 7,
            Self::Off => return None,
        })
    }
}

/// Stiff for `α = 0`, else a spring of stiffness `1/α` over `mass`, undamped as XPBD's
/// compliance is.
fn compliance(alpha: f32, mass: f32) -> ConstraintSettings {
    if alpha <= 0.0 || mass <= 0.0 || !mass.is_finite() {
        return ConstraintSettings::default();
    }
    let frequency = (1.0 / (alpha * mass)).sqrt() / std::f32::consts::TAU;
    ConstraintSettings::soft(frequency, 0.0)
}

fn anchors(
    local1: Option<avian2d::math::Vector>,
    local2: Option<avian2d::math::Vector>,
    b: &Bodies,
) -> Option<(Vec2, Vec2)> {
    Some((
        to_nape(local1?) - b.centres[0],
        to_nape(local2?) - b.centres[1],
    ))
}

impl Mirrored for RevoluteJoint {
    fn bodies(&self) -> [Entity; 2] {
        [self.body1, self.body2]
    }

    fn nape(&self, b: &Bodies) -> Option<[Mirror; 3]> {
        let [h1, h2] = slots();
        let (a1, a2) = anchors(self.local_anchor1(), self.local_anchor2(), b)?;
        let offset = to_f32(self.local_basis1()?.as_radians() - self.local_basis2()?.as_radians());
        let pivot = PivotJoint::new(h1, h2, a1, a2);
        let limit = self.angle_limit.map_or(Mirror::Off, |l| {
            let joint = AngleJoint::new(h1, h2, to_f32(l.min) + offset, to_f32(l.max) + offset);
            Mirror::Angle(
                joint,
                compliance(to_f32(self.limit_compliance), b.reduced_mass),
            )
        });
        let motor = match self.motor.drive(b.reduced_inertia) {
            Drive::Spring { target, settings } => {
                let angle = target + offset;
                Mirror::Angle(AngleJoint::new(h1, h2, angle, angle), settings)
            }
            Drive::Velocity { rate, settings } => {
                Mirror::Motor(MotorJoint::new(h1, h2, rate), settings)
            }
            Drive::Idle => Mirror::Off,
        };
        let point = compliance(to_f32(self.point_compliance), b.reduced_mass);
        Some([Mirror::Pivot(pivot, point), limit, motor])
    }
}

impl Mirrored for FixedJoint {
    fn bodies(&self) -> [Entity; 2] {
        [self.body1, self.body2]
    }

    fn nape(&self, b: &Bodies) -> Option<[Mirror; 3]> {
        let [h1, h2] = slots();
        let (a1, a2) = anchors(self.local_anchor1(), self.local_anchor2(), b)?;
        let phase = to_f32(self.local_basis1()?.as_radians() - self.local_basis2()?.as_radians());
        let weld = WeldJoint::new(h1, h2, a1, a2, phase);
        let alpha = to_f32(self.point_compliance.max(self.angle_compliance));
        Some([
            Mirror::Weld(weld, compliance(alpha, b.reduced_mass)),
            Mirror::Off,
            Mirror::Off,
        ])
    }
}

impl Mirrored for PrismaticJoint {
    fn bodies(&self) -> [Entity; 2] {
        [self.body1, self.body2]
    }

    fn nape(&self, b: &Bodies) -> Option<[Mirror; 3]> {
        let [h1, h2] = slots();
        let (a1, a2) = anchors(self.local_anchor1(), self.local_anchor2(), b)?;
        let basis1 = self.local_basis1()?;
        let phase = to_f32(basis1.as_radians() - self.local_basis2()?.as_radians());
        let axis = to_nape(basis1 * self.slider_axis);
        let (min, max) = self.limits.map_or((f32::NEG_INFINITY, f32::INFINITY), |l| {
            (to_f32(l.min), to_f32(l.max))
        });
        let line = LineJoint::new(h1, h2, a1, a2, axis, min, max);
        let align = AngleJoint::new(h1, h2, phase, phase);
        let motor = match self.motor.drive(b.reduced_mass) {
            Drive::Spring { target, settings } => Mirror::SlideTarget(
                SlideTarget {
                    body1: h1,
                    body2: h2,
                    anchor1: a1,
                    anchor2: a2,
                    direction: axis,
                    target,
                },
                settings,
            ),
            Drive::Velocity { rate, settings } => Mirror::SlideMotor(
                SlideMotor {
                    body1: h1,
                    body2: h2,
                    direction: axis,
                    rate,
                },
                settings,
            ),
            Drive::Idle => Mirror::Off,
        };
        Some([
            Mirror::Line(
                line,
                compliance(to_f32(self.align_compliance), b.reduced_mass),
            ),
            Mirror::Angle(
                align,
                compliance(to_f32(self.angle_compliance), b.reduced_mass),
            ),
            motor,
        ])
    }
}

impl Mirrored for AvianDistance {
    fn bodies(&self) -> [Entity; 2] {
        [self.body1, self.body2]
    }

    fn nape(&self, b: &Bodies) -> Option<[Mirror; 3]> {
        let [h1, h2] = slots();
        let (a1, a2) = anchors(self.local_anchor1(), self.local_anchor2(), b)?;
        let rod = DistanceJoint::new(
            h1,
            h2,
            a1,
            a2,
            to_f32(self.limits.min),
            to_f32(self.limits.max),
        );
        Some([
            Mirror::Distance(rod, compliance(to_f32(self.compliance), b.reduced_mass)),
            Mirror::Off,
            Mirror::Off,
        ])
    }
}

/// The nape joint components a mirror slot may hold.
type MirrorQueries<'w, 's> = (
    Query<'w, 's, &'static mut NapeJoint<PivotJoint, 2, 2>>,
    Query<'w, 's, &'static mut NapeJoint<WeldJoint, 3, 2>>,
    Query<'w, 's, &'static mut NapeJoint<AngleJoint, 1, 2>>,
    Query<'w, 's, &'static mut NapeJoint<MotorJoint, 1, 2>>,
    Query<'w, 's, &'static mut NapeJoint<LineJoint, 2, 2>>,
    Query<'w, 's, &'static mut NapeJoint<DistanceJoint, 1, 2>>,
    Query<'w, 's, &'static mut NapeJoint<SlideTarget, 1, 2>>,
    Query<'w, 's, &'static mut NapeJoint<SlideMotor, 1, 2>>,
);

/// Keeps each Avian joint's mirrors equal to it, spawning them the first time.
fn mirror<A: Mirrored>(
    joints: Query<(Entity, &A, Option<&NapeMirror>, Has<JointDisabled>)>,
    bodies: Query<(
        &ComputedCenterOfMass,
        &ComputedMass,
        &ComputedAngularInertia,
    )>,
    mut mirrors: ParamSet<MirrorQueries>,
    mut commands: Commands,
) {
    for (entity, joint, mirrored, disabled) in &joints {
        let ends = joint.bodies();
        let Ok([(c1, m1, i1), (c2, m2, i2)]) = bodies.get_many(ends) else {
            continue;
        };
        let reduced = |inverse: f32| if inverse > 0.0 { 1.0 / inverse } else { 0.0 };
        let b = Bodies {
            centres: [to_nape(c1.0), to_nape(c2.0)],
            reduced_mass: reduced(to_f32(m1.inverse() + m2.inverse())),
            reduced_inertia: reduced(to_f32(i1.inverse() + i2.inverse())),
        };
        let Some(parts) = joint.nape(&b) else {
            continue;
        };
        let Some(NapeMirror(slots)) = mirrored.copied() else {
            let spawned = parts.map(|part| {
                let mut child = commands.spawn(ChildOf(entity));
                insert(&mut child, part, ends, disabled);
                child.id()
            });
            commands.entity(entity).insert(NapeMirror(spawned));
            continue;
        };
        for (slot, part) in slots.into_iter().zip(parts) {
            // A slot whose part changed kind (a motor's model, a limit switched off)
            // keeps its old joint, inactive.
            deactivate_except(&mut mirrors, slot, part.kind());
            let fresh = match part {
                Mirror::Pivot(c, s) => update(&mut mirrors.p0(), slot, c, s, ends, disabled),
                Mirror::Weld(c, s) => update(&mut mirrors.p1(), slot, c, s, ends, disabled),
                Mirror::Angle(c, s) => update(&mut mirrors.p2(), slot, c, s, ends, disabled),
                Mirror::Motor(c, s) => update(&mut mirrors.p3(), slot, c, s, ends, disabled),
                Mirror::Line(c, s) => update(&mut mirrors.p4(), slot, c, s, ends, disabled),
                Mirror::Distance(c, s) => update(&mut mirrors.p5(), slot, c, s, ends, disabled),
                Mirror::SlideTarget(c, s) => update(&mut mirrors.p6(), slot, c, s, ends, disabled),
                Mirror::SlideMotor(c, s) => update(&mut mirrors.p7(), slot, c, s, ends, disabled),
                Mirror::Off => None,
            };
            if let Some(part) = fresh {
                insert(&mut commands.entity(slot), part, ends, disabled);
            }
        }
    }
}

fn joint_of<C: Constraint<D, 2>, const D: usize>(
    constraint: C,
    mut settings: ConstraintSettings,
    ends: [Entity; 2],
    disabled: bool,
) -> NapeJoint<C, D, 2> {
    settings.active &= !disabled;
    NapeJoint::new(constraint, ends).with_settings(settings)
}

fn insert(child: &mut EntityCommands, part: Mirror, ends: [Entity; 2], disabled: bool) {
    match part {
        Mirror::Pivot(c, s) => child.insert(joint_of(c, s, ends, disabled)),
        Mirror::Weld(c, s) => child.insert(joint_of(c, s, ends, disabled)),
        Mirror::Angle(c, s) => child.insert(joint_of(c, s, ends, disabled)),
        Mirror::Motor(c, s) => child.insert(joint_of(c, s, ends, disabled)),
        Mirror::Line(c, s) => child.insert(joint_of(c, s, ends, disabled)),
        Mirror::Distance(c, s) => child.insert(joint_of(c, s, ends, disabled)),
        Mirror::SlideTarget(c, s) => child.insert(joint_of(c, s, ends, disabled)),
        Mirror::SlideMotor(c, s) => child.insert(joint_of(c, s, ends, disabled)),
        Mirror::Off => child,
    };
}

/// Writes the mirror only when it differs, so that an unchanged joint lets its island
/// sleep (a changed one wakes it). A slot without its joint yet (a limit or motor
/// switched on) is returned, to be inserted.
fn update<C: Constraint<D, 2> + PartialEq, const D: usize>(
    joints: &mut Query<&mut NapeJoint<C, D, 2>>,
    slot: Entity,
    constraint: C,
    settings: ConstraintSettings,
    ends: [Entity; 2],
    disabled: bool,
) -> Option<Mirror>
where
    Mirror: From<(C, ConstraintSettings)>,
{
    let Ok(mut current) = joints.get_mut(slot) else {
        return Some(Mirror::from((constraint, settings)));
    };
    let wanted = joint_of(constraint, settings, ends, disabled);
    if current.constraint != wanted.constraint
        || current.settings != wanted.settings
        || current.bodies != wanted.bodies
    {
        *current = wanted;
    }
    None
}

/// Deactivates every joint of `slot` but the one of kind `keep`.
fn deactivate_except(mirrors: &mut ParamSet<MirrorQueries>, slot: Entity, keep: Option<usize>) {
    macro_rules! each_kind {
        ($($query:ident $kind:literal),*) => {$(
            if keep != Some($kind) {
                deactivate(&mut mirrors.$query(), slot);
            }
        )*};
    }
    each_kind!(p0 0, p1 1, p2 2, p3 3, p4 4, p5 5, p6 6, p7 7);
}

fn deactivate<C: Constraint<D, 2>, const D: usize>(
    joints: &mut Query<&mut NapeJoint<C, D, 2>>,
    slot: Entity,
) {
    if let Ok(mut joint) = joints.get_mut(slot)
        && joint.settings.active
    {
        joint.settings.active = false;
    }
}

macro_rules! mirror_from {
    ($($variant:ident($joint:ty)),*) => {$(
        impl From<($joint, ConstraintSettings)> for Mirror {
            fn from((joint, settings): ($joint, ConstraintSettings)) -> Self {
                Self::$variant(joint, settings)
            }
        }
    )*};
}

mirror_from!(
    Pivot(PivotJoint),
    Weld(WeldJoint),
    Angle(AngleJoint),
    Motor(MotorJoint),
    Line(LineJoint),
    Distance(DistanceJoint),
    SlideTarget(SlideTarget),
    SlideMotor(SlideMotor)
);
