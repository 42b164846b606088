use nape::constraint;

#[constraint(position = 0.0)]
enum NotAStruct {
    A,
}

fn main() {}
