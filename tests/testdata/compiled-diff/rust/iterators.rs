// Iterators and closures; exits 0 only if the result is right.
fn main() {
    let squares: u64 = (1..=10u64).filter(|n| n % 2 == 1).map(|n| n * n).sum();
    std::process::exit(if squares == 165 { 0 } else { 1 });
}
