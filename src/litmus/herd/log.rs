//! Readers for herd7 logs (`herd7-logs/<arch>.<model>.log`) and the
//! corpus' `EXPECTED.tsv`, used to compare our results with herd's.

use std::collections::BTreeMap;

/// One `Test ... Hash=` block of a herd7 log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogBlock {
    /// Test name.
    pub name: String,
    /// `Allowed`, `Forbidden` or `Required`.
    pub kind: String,
    /// The state lines, verbatim (without trailing spaces), in log order.
    pub states: Vec<String>,
    /// `Ok` (true) or `No`.
    pub ok: bool,
    /// A `Loop` prefix was printed before `Ok`/`No`.
    pub has_loop: bool,
    /// `Positive: P Negative: N` (w.r.t. the quantified condition).
    pub positive: u64,
    /// See `positive`.
    pub negative: u64,
    /// The text after `Condition `.
    pub condition: String,
    /// `Never`, `Sometimes` or `Always`.
    pub observation: String,
    /// The counts of the `Observation` line (w.r.t. P).
    pub obs_pos: u64,
    /// See `obs_pos`.
    pub obs_neg: u64,
    /// The block's lines from `Test` to `Time` inclusive (no `Hash`).
    pub lines: Vec<String>,
}

/// Parses a herd7 log into its blocks, in order. Lines outside blocks
/// are ignored. Errors: a malformed block (message names the line).
pub fn parse_log(text: &str) -> Result<Vec<LogBlock>, String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i].trim_end();
        let Some(rest) = l.strip_prefix("Test ") else {
            i += 1;
            continue;
        };
        let start = i;
        let mut w = rest.split_whitespace();
        let name = w
            .next()
            .ok_or(format!("line {}: `Test` without name", i + 1))?
            .to_string();
        let kind = w.next().unwrap_or("").to_string();
        i += 1;
        let n: usize = lines
            .get(i)
            .and_then(|x| x.strip_prefix("States "))
            .and_then(|x| x.trim().parse().ok())
            .ok_or(format!("line {}: expected `States N`", i + 1))?;
        i += 1;
        let states: Vec<String> = lines
            .get(i..i + n)
            .ok_or(format!("line {}: truncated states", i + 1))?
            .iter()
            .map(|x| x.trim_end().to_string())
            .collect();
        i += n;
        let okl = lines.get(i).map(|x| x.trim()).unwrap_or("");
        let has_loop = okl.starts_with("Loop ");
        let ok = match okl.trim_start_matches("Loop ") {
            "Ok" => true,
            "No" => false,
            _ => return Err(format!("line {}: expected `Ok` or `No`", i + 1)),
        };
        let mut b = LogBlock {
            name,
            kind,
            states,
            ok,
            has_loop,
            positive: 0,
            negative: 0,
            condition: String::new(),
            observation: String::new(),
            obs_pos: 0,
            obs_neg: 0,
            lines: Vec::new(),
        };
        i += 1;
        while i < lines.len() {
            let l = lines[i].trim_end();
            if let Some(r) = l.strip_prefix("Positive: ") {
                let v: Vec<&str> = r.split_whitespace().collect();
                b.positive = v.first().and_then(|x| x.parse().ok()).unwrap_or(0);
                b.negative = v.get(2).and_then(|x| x.parse().ok()).unwrap_or(0);
            } else if let Some(r) = l.strip_prefix("Condition ") {
                b.condition = r.to_string();
            } else if let Some(r) = l.strip_prefix("Observation ") {
                let v: Vec<&str> = r.split_whitespace().collect();
                b.observation = v.get(1).unwrap_or(&"").to_string();
                b.obs_pos = v.get(2).and_then(|x| x.parse().ok()).unwrap_or(0);
                b.obs_neg = v.get(3).and_then(|x| x.parse().ok()).unwrap_or(0);
            } else if l.starts_with("Time ") {
                i += 1;
                break;
            } else if l.starts_with("Test ") {
                return Err(format!("line {}: block without `Time`", i + 1));
            }
            i += 1;
        }
        b.lines = lines[start..i]
            .iter()
            .map(|x| x.trim_end().to_string())
            .collect();
        out.push(b);
    }
    Ok(out)
}

/// Blocks by test name.
pub fn by_name(blocks: Vec<LogBlock>) -> BTreeMap<String, LogBlock> {
    blocks.into_iter().map(|b| (b.name.clone(), b)).collect()
}

/// One row of `EXPECTED.tsv`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExpectedRow {
    /// `X86`, `PPC`, `X86_64`.
    pub arch: String,
    /// Path relative to the corpus directory (`X86/SB.litmus`).
    pub file: String,
    /// herd model file (`x86tso.cat`, `sc.cat`, ...).
    pub model: String,
    /// `Allowed` or `Forbidden`.
    pub verdict: String,
}

/// Parses `EXPECTED.tsv` (first line is a header). Errors: a row without
/// four tab-separated columns.
pub fn parse_expected(text: &str) -> Result<Vec<ExpectedRow>, String> {
    let mut out = Vec::new();
    for (i, l) in text.lines().enumerate().skip(1) {
        if l.trim().is_empty() {
            continue;
        }
        let c: Vec<&str> = l.split('\t').collect();
        if c.len() < 4 {
            return Err(format!("EXPECTED.tsv line {}: expected 4 columns", i + 1));
        }
        out.push(ExpectedRow {
            arch: c[0].to_string(),
            file: c[1].to_string(),
            model: c[2].to_string(),
            verdict: c[3].to_string(),
        });
    }
    Ok(out)
}
