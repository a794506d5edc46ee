//! `bmc-rmm merge OUT...`: combines the record files of the shards of
//! one batch (`--shard I/N --jsonl OUT`, [`super::shard`]) into the report
//! one process would have printed: the output in input order (text,
//! `--json`, or `--herd` for herd's log), the summary, and with
//! `--expect` the comparison with an expectations file. It refuses
//! shards of different runs, a shard without any file, an input recorded
//! twice and an input of a shard without a record.

use super::args::MergeArgs;
use super::report::{report, Mode};
use super::shard::{read_lines, Header, Line, Record};
use bmc_rmm::diag::Error;
use std::collections::BTreeMap;

/// The shards' records, checked and in input order.
#[derive(Debug)]
pub struct Merged {
    /// The first header (all agree on command, shard count and input list).
    pub header: Header,
    /// One record per input of every shard, in input order.
    pub records: Vec<Record>,
}

/// Reads and checks the record files `paths`.
///
/// Errors: an unreadable file or malformed line; no header; headers of
/// different commands, shard counts or input lists; a missing shard; an
/// input recorded twice; an input without a record (all problems are
/// listed in one message).
pub fn collect(paths: &[String]) -> Result<Merged, Error> {
    let mut headers: Vec<(Header, String)> = Vec::new();
    let mut records: BTreeMap<usize, (Record, String)> = BTreeMap::new();
    let mut problems = Vec::new();
    for p in paths {
        let (lines, torn) = read_lines(p)?;
        if torn.is_some() {
            eprintln!("warning: {p}: the last line is incomplete (a killed shard); ignored");
        }
        for l in lines {
            match l {
                Line::Shard(h) => headers.push((h, p.clone())),
                Line::Result(r) => match records.get(&r.index) {
                    Some((_, first)) => problems.push(format!(
                        "duplicated input {}: recorded in {first} and in {p}",
                        r.input
                    )),
                    None => {
                        records.insert(r.index, (r, p.clone()));
                    }
                },
            }
        }
    }
    let Some((first, first_file)) = headers.first().cloned() else {
        return Err(Error::Usage(
            "no shard header in the given files (not written by --jsonl?)".into(),
        ));
    };
    for (h, f) in &headers {
        if h.command != first.command || h.shard.count != first.shard.count || h.list != first.list
        {
            return Err(Error::Usage(format!(
                "{f} (`{} --shard {}`) and {first_file} (`{} --shard {}`) are not shards of one run \
                 (different command, shard count or input list)",
                h.command, h.shard, first.command, first.shard
            )));
        }
    }
    let mut inputs: BTreeMap<usize, (String, u32)> = BTreeMap::new();
    for i in 1..=first.shard.count {
        let of_shard: Vec<&Header> = (headers.iter())
            .filter(|(h, _)| h.shard.index == i)
            .map(|(h, _)| h)
            .collect();
        if of_shard.is_empty() {
            problems.push(format!(
                "missing shard {i}/{}: no file holds its records",
                first.shard.count
            ));
        }
        for h in of_shard {
            for (k, f) in &h.inputs {
                inputs.insert(*k, (f.clone(), i));
            }
        }
    }
    for (k, (f, i)) in &inputs {
        if !records.contains_key(k) {
            problems.push(format!(
                "missing input {f} (shard {i}/{}): not recorded; rerun the shard with --resume",
                first.shard.count
            ));
        }
    }
    if !problems.is_empty() {
        const MAX: usize = 50;
        let more = problems.len().saturating_sub(MAX);
        problems.truncate(MAX);
        if more > 0 {
            problems.push(format!("… and {more} more"));
        }
        return Err(Error::Usage(format!(
            "cannot merge:\n  {}",
            problems.join("\n  ")
        )));
    }
    Ok(Merged {
        header: first,
        records: records.into_values().map(|(r, _)| r).collect(),
    })
}

/// Runs `bmc-rmm merge`; the exit status is the one the whole run in
/// one process would have given ([`super::report::Report::status`]).
///
/// Errors: those of [`collect`]; `--herd` on records of another command
/// than `litmus`; `--expect` on `diff`/`crosscheck` records; a malformed
/// expectations file.
pub fn run(a: &MergeArgs) -> Result<i32, Error> {
    if a.files.is_empty() {
        return Err(Error::Usage("no record FILE given".into()));
    }
    let m = collect(&a.files)?;
    let h = &m.header;
    if a.herd && h.command != "litmus" {
        return Err(Error::Usage(format!(
            "--herd prints litmus tests' herd log; these are `{}` records",
            h.command
        )));
    }
    let exp = match &a.expect {
        Some(_) if matches!(h.command.as_str(), "diff" | "crosscheck") => {
            return Err(Error::Usage(format!(
                "--expect compares verdicts of litmus, reach and robust; these are `{}` records",
                h.command
            )))
        }
        Some(p) => Some(super::expect::Expectations::read(p)?),
        None => None,
    };
    let mode = if a.json {
        Mode::Json
    } else if a.herd {
        Mode::Herd
    } else {
        Mode::Text
    };
    let summary = super::batch::Summary::new(
        &h.what,
        &h.words.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    let recs: Vec<&Record> = m.records.iter().collect();
    let mut rep = report(&recs, &h.model, &h.aliases, exp.as_ref(), mode, summary);
    if mode == Mode::Text && h.command == "diff" {
        rep.stdout = super::diff::merged_table(&h.meta, &recs);
    }
    if mode == Mode::Text {
        if let Some(head) = h.meta.get("head").and_then(|x| x.as_str()) {
            rep.stdout.insert_str(0, head);
        }
    }
    print!("{}", rep.stdout);
    eprint!("{}", rep.stderr);
    Ok(rep.status)
}
