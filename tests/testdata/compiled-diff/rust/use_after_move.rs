// Does not compile: a value used after it moved.
fn main() {
    let s = String::from("x");
    let t = s;
    println!("{} {}", s, t);
}
