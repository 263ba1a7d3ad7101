// Word counts in a HashMap; exits 0 only if they are right.
use std::collections::HashMap;

fn main() {
    let mut counts: HashMap<&str, u32> = HashMap::new();
    for w in "a b a c b a".split(' ') {
        *counts.entry(w).or_insert(0) += 1;
    }
    std::process::exit(if counts["a"] == 3 && counts["b"] == 2 && counts["c"] == 1 { 0 } else { 1 });
}
