//! The domain layer's dependencies run one way. This reads the source: every
//! `crate::domain::…` a domain module names must be its own group or a group
//! below it, and no domain module may name the HTTP layer or Rocket.

use std::path::{Path, PathBuf};

/// Each domain module by rank: a module may use its own group and lower ranks
/// only, so groups on one rank never use each other.
const RANKS: &[(&str, u8)] = &[
    ("validate", 0),
    ("event", 0),
    ("settings", 1),
    ("tx", 2),
    ("stations", 3),
    ("tables", 3),
    ("staff", 3),
    ("webhooks", 3),
    ("menu", 4),
    ("attendance", 4),
    ("campaigns", 5),
    ("shifts", 5),
    ("orders", 6),
    ("dining", 7),
    ("kitchen", 7),
    ("partners", 7),
    ("reactions", 8),
];

/// Names the domain root re-exports, by the module they come from; `run` wires
/// the reactions, so only the layers above the domain may use it.
const ROOT_NAMES: &[(&str, &str)] = &[
    ("Tx", "tx"),
    ("Context", "tx"),
    ("AfterCommit", "tx"),
    ("Event", "event"),
    ("run", "reactions"),
];

fn rank(module: &str) -> Option<u8> {
    RANKS.iter().find(|(m, _)| *m == module).map(|(_, r)| *r)
}

/// The domain modules a piece of source names through `crate::domain::`,
/// including each name of a `use crate::domain::{a, b::c, Tx}` list.
fn named_modules(source: &str) -> Vec<String> {
    let mut named = Vec::new();
    for (at, _) in source.match_indices("crate::domain::") {
        let rest = &source[at + "crate::domain::".len()..];
        let names: Vec<&str> = match rest.strip_prefix('{') {
            Some(list) => {
                let list = &list[..list.find('}').unwrap_or(list.len())];
                list.split(',').collect()
            }
            None => vec![rest],
        };
        for name in names {
            let first: String = name
                .trim()
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let module = ROOT_NAMES
                .iter()
                .find(|(n, _)| *n == first)
                .map_or(first.clone(), |(_, m)| m.to_string());
            if !module.is_empty() && module != "self" {
                named.push(module);
            }
        }
    }
    named
}

/// Every rule a domain file breaks: `group` is the first path component under
/// `src/domain` (`dining` for `dining/sessions/queries.rs`).
fn violations(group: &str, file: &str, source: &str) -> Vec<String> {
    let mut found = Vec::new();
    for line in source.lines() {
        let code = line.trim_start();
        if code.starts_with("//") {
            continue;
        }
        if code.contains("crate::api") {
            found.push(format!("{file}: the domain uses the HTTP layer: {code}"));
        }
        if code.starts_with("use rocket") || code.contains("rocket::") {
            found.push(format!("{file}: the domain uses Rocket: {code}"));
        }
    }
    let Some(own) = rank(group) else {
        found.push(format!(
            "{file}: {group} has no rank in the architecture test"
        ));
        return found;
    };
    for module in named_modules(source) {
        if module == group {
            continue;
        }
        match rank(&module) {
            Some(theirs) if theirs < own => {}
            Some(_) => found.push(format!(
                "{file}: {group} must not use {module}, which is not below it"
            )),
            None => found.push(format!("{file}: uses unknown domain module {module}")),
        }
    }
    found
}

/// The source with `super::` paths that reach the domain root written as
/// `crate::domain::`: for `tx.rs` one `super::`, for `orders/write.rs` two.
fn as_absolute(source: &str, relative: &Path) -> String {
    let components = relative.components().count();
    let depth = if relative.ends_with("mod.rs") {
        components - 1
    } else {
        components
    };
    source.replace(&"super::".repeat(depth), "crate::domain::")
}

fn rust_files(dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
}

#[test]
fn domain_modules_depend_only_downward_and_never_on_http() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/domain");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let mut found = Vec::new();
    let mut checked = 0;
    for path in &files {
        let relative = path.strip_prefix(&root).unwrap();
        // The root lists the modules and wires the reactions in: it is above all.
        if relative == Path::new("mod.rs") {
            continue;
        }
        let group = relative
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
        let source = as_absolute(&std::fs::read_to_string(path).unwrap(), relative);
        found.extend(violations(&group, &relative.to_string_lossy(), &source));
        checked += 1;
    }
    assert!(checked > 20, "only {checked} domain files found");
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn a_wrong_import_is_caught() {
    // Orders calling up into the dining room, as they once did.
    let upward = "use crate::domain::dining::sessions;\n";
    assert_eq!(violations("orders", "orders/write.rs", upward).len(), 1);
    // Two groups of one rank.
    let sideways = "use crate::domain::{stations, tables::Table, Tx};\n";
    assert_eq!(
        violations("stations", "stations/queries.rs", sideways).len(),
        1
    );
    // The write context is below the groups, the reactions above them all.
    assert!(violations("orders", "orders/write.rs", sideways).is_empty());
    let wiring = "let x = crate::domain::run(sql, context, work);\n";
    assert_eq!(violations("dining", "dining/seatmap.rs", wiring).len(), 1);
    let reaching_up = as_absolute(
        "use super::super::dining::seatmap;\n",
        Path::new("orders/write.rs"),
    );
    assert_eq!(
        violations("orders", "orders/write.rs", &reaching_up).len(),
        1
    );
    let http = "use crate::api::reply::Reply;\nuse rocket::http::Status;\n";
    assert_eq!(violations("menu", "menu/queries.rs", http).len(), 2);
}
