//! The figures of `docs/reference/performance.md` and the README: the page's
//! tables are the rows `benches/report.sh` writes (the same comparisons, in
//! one measure each, against the same targets), every row's verdict follows
//! from its ratio and target, and the README quotes rows as they stand in
//! the page.

use std::collections::BTreeMap;
use std::process::Command;

use super::{read, root};

const PAGE: &str = "docs/reference/performance.md";
const MEASURES: [&str; 2] = ["time", "instructions"];

/// One row of a figures table.
#[derive(Debug, Clone, PartialEq)]
struct Row {
    label: String,
    measure: String,
    ratio: String,
    target: String,
    met: String,
}

fn cells(line: &str) -> Vec<String> {
    let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
    inner
        .split('|')
        .map(|cell| cell.trim().to_owned())
        .collect()
}

/// The rows of a table whose header is `header`, after the header's line.
fn table(lines: &[&str], header: &[&str]) -> Vec<Row> {
    let Some(at) = lines.iter().position(|line| cells(line) == header) else {
        return Vec::new();
    };
    let column = |name: &str| header.iter().position(|cell| *cell == name).unwrap();
    lines[at + 2..]
        .iter()
        .take_while(|line| line.starts_with('|'))
        .map(|line| {
            let cells = cells(line);
            assert_eq!(
                cells.len(),
                header.len(),
                "a row of {} cells: {line}",
                cells.len()
            );
            Row {
                label: cells[column("measurement")].clone(),
                measure: cells[column("measure")].clone(),
                ratio: cells[column("ratio")].clone(),
                target: cells[column("target")].clone(),
                met: cells[column("met")].clone(),
            }
        })
        .collect()
}

const PAGE_HEADER: [&str; 7] = [
    "measurement",
    "measure",
    "annot",
    "against",
    "ratio",
    "target",
    "met",
];
const README_HEADER: [&str; 5] = ["measurement", "measure", "ratio", "target", "met"];

/// The page's generated blocks by name, each its rows.
fn page_blocks() -> BTreeMap<String, Vec<Row>> {
    let page = read(&root().join(PAGE));
    let lines: Vec<&str> = page.lines().collect();
    let mut blocks = BTreeMap::new();
    let mut index = 0;
    while index < lines.len() {
        if let Some(name) = lines[index]
            .strip_prefix("<!-- report.sh: ")
            .and_then(|rest| rest.strip_suffix(" -->"))
        {
            let end = index
                + lines[index..]
                    .iter()
                    .position(|line| *line == "<!-- /report.sh -->")
                    .unwrap_or_else(|| panic!("the {name} block of {PAGE} is not closed"));
            let rows = table(&lines[index..end], &PAGE_HEADER);
            assert!(!rows.is_empty(), "the {name} block of {PAGE} has no table");
            assert!(
                lines[index + 1].starts_with("Measured "),
                "the {name} block of {PAGE} does not say when it was measured"
            );
            blocks.insert(name.to_owned(), rows);
            index = end;
        }
        index += 1;
    }
    blocks
}

/// What `report.sh --list` gives: per block, (label, measure, target).
fn report_rows() -> BTreeMap<String, Vec<(String, String, String)>> {
    let output = Command::new("bash")
        .arg(root().join("benches/report.sh"))
        .arg("--list")
        .output()
        .expect("run bash benches/report.sh --list");
    assert!(
        output.status.success(),
        "report.sh --list failed: {output:?}"
    );
    let mut blocks: BTreeMap<String, Vec<_>> = BTreeMap::new();
    for line in String::from_utf8(output.stdout).unwrap().lines() {
        let fields: Vec<&str> = line.split('\t').collect();
        let [block, label, measure, target] = fields[..] else {
            panic!("report.sh --list gave `{line}`");
        };
        blocks.entry(block.to_owned()).or_default().push((
            label.to_owned(),
            measure.to_owned(),
            target.to_owned(),
        ));
    }
    blocks
}

/// Whether `ratio` meets `target` (`≤ 1.05`, `≥ 10`).
fn meets(ratio: f64, target: &str) -> bool {
    let bound = |prefix: &str| target.strip_prefix(prefix)?.trim().parse::<f64>().ok();
    if let Some(most) = bound("≤") {
        ratio <= most
    } else if let Some(least) = bound("≥") {
        ratio >= least
    } else {
        panic!("a target is `≤ x` or `≥ x`, not `{target}`")
    }
}

#[test]
fn the_performance_tables_are_the_reports_rows() {
    let page: BTreeMap<String, Vec<(String, String, String)>> = page_blocks()
        .into_iter()
        .map(|(name, rows)| {
            let rows = rows
                .into_iter()
                .map(|row| (row.label, row.measure, row.target));
            (name, rows.collect())
        })
        .collect();
    assert_eq!(
        page,
        report_rows(),
        "{PAGE} and `bash benches/report.sh --list` disagree: write the page again \
         (`bash benches/report.sh ... --write`)"
    );
}

#[test]
fn every_figure_has_one_measure_and_a_verdict_its_target_gives() {
    for (block, rows) in page_blocks() {
        for row in rows {
            assert!(MEASURES.contains(&row.measure.as_str()), "{block}: {row:?}");
            let ratio: f64 = row
                .ratio
                .parse()
                .unwrap_or_else(|_| panic!("{block}: {row:?}"));
            let met = if meets(ratio, &row.target) {
                "yes"
            } else {
                "no"
            };
            assert_eq!(row.met, met, "{block}: {row:?}");
        }
    }
}

#[test]
fn the_readme_quotes_performance_rows_as_they_stand() {
    let readme = read(&root().join("README.md"));
    let lines: Vec<&str> = readme.lines().collect();
    let quoted = table(&lines, &README_HEADER);
    assert!(
        (3..=10).contains(&quoted.len()),
        "the README keeps a handful of figures, not {}",
        quoted.len()
    );
    let rows: Vec<Row> = page_blocks().into_values().flatten().collect();
    for quote in quoted {
        let row = rows
            .iter()
            .find(|row| row.label == quote.label)
            .unwrap_or_else(|| panic!("the README quotes a row {PAGE} does not have: {quote:?}"));
        assert_eq!(&quote, row, "the README quotes a row otherwise than {PAGE}");
    }
}
