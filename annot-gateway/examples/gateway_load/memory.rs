//! The resident memory of a process and of the processes under it (Linux:
//! from /proc).

/// Resident memory in KiB of `pid` alone, and of it with every process
/// under it, and how many processes are under it.
pub fn memory(pid: u32) -> (u64, u64, usize) {
    fn rss(pid: u32) -> u64 {
        std::fs::read_to_string(format!("/proc/{pid}/status"))
            .ok()
            .and_then(|status| {
                status
                    .lines()
                    .find(|line| line.starts_with("VmRSS:"))?
                    .split_whitespace()
                    .nth(1)?
                    .parse()
                    .ok()
            })
            .unwrap_or(0)
    }
    let mut parents: Vec<(u32, u32)> = Vec::new();
    if let Ok(entries) = std::fs::read_dir("/proc") {
        for entry in entries.flatten() {
            let Some(child) = entry.file_name().to_str().and_then(|n| n.parse().ok()) else {
                continue;
            };
            let parent = std::fs::read_to_string(format!("/proc/{child}/stat"))
                .ok()
                .and_then(|stat| {
                    let rest = &stat[stat.rfind(')')? + 2..];
                    rest.split(' ').nth(1)?.parse::<u32>().ok()
                });
            if let Some(parent) = parent {
                parents.push((child, parent));
            }
        }
    }
    let mut tree = vec![pid];
    let mut index = 0;
    while index < tree.len() {
        let parent = tree[index];
        tree.extend(
            parents
                .iter()
                .filter(|(_, p)| *p == parent)
                .map(|(c, _)| *c),
        );
        index += 1;
    }
    let total = tree.iter().map(|pid| rss(*pid)).sum();
    (rss(pid), total, tree.len() - 1)
}
