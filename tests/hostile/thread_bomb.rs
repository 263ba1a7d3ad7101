// Attack: a thread bomb in Rust: start sleeping threads (small stacks) as
// fast as the kernel allows, until it refuses one.
// Contained by limits.pids (threads are tasks): the spawn fails with EAGAIN
// and the container never holds more than limits.pids tasks.
// Reports: "errno EAGAIN" (the failed spawn's error), "peak_tasks N" (the
// tasks counted in /proc, PID 1 included, at the failure) and "spawned N".
use std::{fs, thread, time::Duration};

fn tasks() -> usize {
    let mut n = 0;
    for entry in fs::read_dir("/proc").unwrap().flatten() {
        let name = entry.file_name();
        if name.to_string_lossy().chars().all(|c| c.is_ascii_digit()) {
            if let Ok(task) = fs::read_dir(entry.path().join("task")) {
                n += task.count();
            }
        }
    }
    n
}

fn main() {
    let mut spawned = 0;
    loop {
        let started = thread::Builder::new()
            .stack_size(64 * 1024)
            .spawn(|| thread::sleep(Duration::from_secs(60)));
        match started {
            Ok(_) => spawned += 1,
            Err(e) => {
                let code = if e.raw_os_error() == Some(11) { "EAGAIN".to_string() } else { e.to_string() };
                println!("errno {}", code);
                println!("peak_tasks {}", tasks());
                println!("spawned {}", spawned);
                std::process::exit(0);
            }
        }
    }
}
