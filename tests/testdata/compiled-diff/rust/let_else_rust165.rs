// let-else became stable in Rust 1.65: under 1.63 this does not compile.
fn main() {
    let Some(x) = "7".parse::<u32>().ok() else { return };
    println!("{}", x);
}
