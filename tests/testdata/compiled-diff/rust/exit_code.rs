// std::process::exit with a code of its own.
fn main() {
    std::process::exit(3);
}
