// unwrap on None panics (exit 101).
fn main() {
    let found: Option<u8> = std::env::args().nth(5).map(|_| 1);
    println!("{}", found.unwrap());
}
