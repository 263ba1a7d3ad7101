// Prints and exits 0.
fn main() {
    println!("hello");
}
