// An index past the vector's end panics (exit 101), bounds checks stay on under -O.
fn main() {
    let v: Vec<usize> = std::env::args().map(|a| a.len()).collect();
    println!("{}", v[v.len() + 2]);
}
