use nape::constraint;

#[constraint(position = 0.0)]
union NotAStruct {
    a: f32,
}

fn main() {}
