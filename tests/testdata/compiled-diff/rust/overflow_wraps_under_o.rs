// Under -O (the rust language's flags) overflow checks are off: 255u8 + 1
// wraps to 0, and the program exits 0; with checks on it would panic.
fn main() {
    let x: u8 = 254 + std::env::args().count() as u8;
    let y = x + 1;
    std::process::exit(if y == 0 { 0 } else { 1 });
}
