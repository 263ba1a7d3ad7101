// An explicit panic: the process exits 101.
fn main() {
    panic!("on purpose");
}
