//! Sharding a batch over processes or machines (`--shard I/N`) and its
//! record file (`--jsonl OUT`, `--resume`): which inputs of the expanded
//! list a shard runs, and the JSON-lines file a shard appends one record
//! per input to as each input completes. `merge` (`cli::merge`) reads
//! these files back.
//!
//! The split is by path: input `f` belongs to shard `1 + fnv1a64(f) mod
//! N` (FNV-1a over the path's bytes as given on the command line or
//! produced by directory expansion), so it does not depend on the order
//! in which a machine lists a directory, and N processes with the same
//! inputs cover every input exactly once.
//!
//! File format (docs/batch.md): one JSON object per line. A line with
//! `"kind": "shard"` ([`Header`]) starts every run of a shard (a resumed
//! run appends one more); a line with `"kind": "result"` ([`Record`]) is
//! one input's answer. Every line is written with one `write` call and
//! is complete on disk (in the kernel's page cache) before the next input
//! is recorded, so a killed shard loses only the inputs it had not
//! finished; a torn last line is cut off by `--resume`.

use bmc_rmm::diag::Error;
use clap::Args;
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::sync::Mutex;

/// `--shard I/N`: shard I (1-based) of N.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardSpec {
    /// This shard, 1..=n.
    pub index: u32,
    /// The number of shards, ≥ 1.
    pub count: u32,
}

impl ShardSpec {
    /// The whole input list (`1/1`).
    pub const ALL: ShardSpec = ShardSpec { index: 1, count: 1 };

    /// True when `file` belongs to this shard.
    pub fn contains(&self, file: &str) -> bool {
        (fnv1a64(file.as_bytes()) % u64::from(self.count)) as u32 + 1 == self.index
    }
}

impl std::fmt::Display for ShardSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// Parses `--shard I/N` (1 ≤ I ≤ N).
///
/// Errors: not two positive integers separated by `/`, or I > N.
pub fn parse_shard(s: &str) -> Result<ShardSpec, String> {
    let bad = || format!("`{s}` is not I/N with 1 <= I <= N (e.g. --shard 2/8)");
    let (i, n) = s.trim().split_once('/').ok_or_else(bad)?;
    let index: u32 = i.trim().parse().map_err(|_| bad())?;
    let count: u32 = n.trim().parse().map_err(|_| bad())?;
    if index == 0 || count == 0 || index > count {
        return Err(bad());
    }
    Ok(ShardSpec { index, count })
}

/// FNV-1a, 64 bits: a hash that is the same on every machine and build
/// (unlike std's `DefaultHasher`, whose algorithm may change).
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// A fingerprint of the whole expanded input list (count and paths in
/// order), recorded in every header: `merge` refuses to combine shards
/// that ran on different lists.
pub fn list_hash(files: &[String]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for f in files {
        h ^= fnv1a64(f.as_bytes());
        h = h.wrapping_mul(0x0100_0000_01b3).rotate_left(17);
    }
    format!("{:016x}-{}", h, files.len())
}

/// The first line of each run of a shard.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// The command (`litmus`, `reach`, `robust`, `check` for the default
    /// reach + robust, `diff`, `crosscheck`).
    pub command: String,
    /// Which shard.
    pub shard: ShardSpec,
    /// Number of inputs in the whole expanded list (all shards).
    pub total: usize,
    /// [`list_hash`] of the whole list.
    pub list: String,
    /// This shard's inputs: (position in the whole list, path).
    pub inputs: Vec<(usize, String)>,
    /// What the summary counts (`tests`, `results`, `inputs`).
    pub what: String,
    /// The summary's words listed even with count 0, in order.
    pub words: Vec<String>,
    /// The model's printed name (empty when the command has two).
    pub model: String,
    /// The model's names in expectations files.
    pub aliases: Vec<String>,
    /// Command-specific data `merge` needs to print the report (e.g. the
    /// column titles of `diff`).
    #[serde(default)]
    pub meta: serde_json::Value,
}

/// One input's answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// Position of the input in the whole expanded list.
    pub index: usize,
    /// The input's path.
    pub input: String,
    /// (check, verdict word) for each answer `--expect` can compare
    /// (`litmus`/`reach`/`robust`; empty for `diff`, `crosscheck`).
    pub checks: Vec<(String, String)>,
    /// The words the summary counts for this input.
    pub summary: Vec<String>,
    /// The exit status this input alone gives without `--expect` (0, 1,
    /// 2 or 3).
    pub status: i32,
    /// The records `--json` prints for this input, in order.
    pub json: Vec<serde_json::Value>,
    /// What the text output prints for this input.
    pub text: String,
    /// The herd block (`litmus` only; `None` for an error or unknown).
    #[serde(default)]
    pub herd: Option<String>,
    /// The input could not be read or checked: the message (printed on
    /// stderr).
    #[serde(default)]
    pub error: Option<String>,
    /// Command-specific data (e.g. `diff`'s row).
    #[serde(default)]
    pub meta: serde_json::Value,
}

/// One line of a record file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Line {
    /// A shard run's header.
    Shard(Header),
    /// One input's answer.
    Result(Record),
}

/// Reads a record file into its lines. A last line without a newline (a
/// shard killed while writing it) is dropped and reported in the second
/// component as its byte offset.
///
/// Errors: unreadable file; a complete line that is not a record
/// (located `file:line:column`).
pub fn read_lines(path: &str) -> Result<(Vec<Line>, Option<usize>), Error> {
    let src = bmc_rmm::diag::SourceFile::read(path)?;
    let mut out = Vec::new();
    let mut torn = None;
    let mut offset = 0;
    for raw in src.text.split_inclusive('\n') {
        if !raw.ends_with('\n') {
            torn = Some(offset);
            break;
        }
        let start = offset + (raw.len() - raw.trim_start().len());
        offset += raw.len();
        let l = raw.trim();
        if l.is_empty() {
            continue;
        }
        let line: Line = serde_json::from_str(l).map_err(|e| {
            let span = bmc_rmm::diag::Span::new(start, start + l.len());
            src.error(span, format!("not a bmc-rmm record line ({e})"))
        })?;
        out.push(line);
    }
    Ok((out, torn))
}

/// `--shard I/N`, `--jsonl OUT`, `--resume`: running a batch as N
/// independent processes and merging their records (`bmc-rmm merge`,
/// docs/batch.md).
#[derive(Args, Debug, Clone, Default)]
pub struct ShardArgs {
    /// Run only shard I of N of the expanded inputs (1 <= I <= N); the
    /// split is by path, the same on every machine.
    #[arg(long, value_name = "I/N", value_parser = parse_shard)]
    pub shard: Option<ShardSpec>,
    /// Append one JSON record per input to OUT as it completes (for
    /// `bmc-rmm merge`).
    #[arg(long, value_name = "OUT")]
    pub jsonl: Option<String>,
    /// Skip the inputs already recorded in the --jsonl file and append.
    #[arg(long, requires = "jsonl")]
    pub resume: bool,
}

/// What a batch command runs under `--shard`/`--jsonl`/`--resume`, and
/// where it records its answers.
pub struct Shard {
    header: Header,
    index: std::collections::HashMap<String, usize>,
    sink: Option<Mutex<std::fs::File>>,
    path: String,
}

/// What a command tells [`Shard::select`] about itself.
pub struct Describe<'a> {
    /// The command's name ([`Header::command`]).
    pub command: &'a str,
    /// What the summary counts.
    pub what: &'a str,
    /// The summary's fixed words.
    pub words: &'a [&'a str],
    /// The model's printed name.
    pub model: &'a str,
    /// The model's names in expectations files.
    pub aliases: &'a [String],
    /// Command-specific header data.
    pub meta: serde_json::Value,
}

impl Shard {
    /// Selects this shard's inputs from the whole expanded list `files`
    /// (in their order) and, with `--jsonl`, opens the record file: with
    /// `--resume` the inputs it already holds are dropped from the
    /// selection and new records are appended; without, the file is
    /// started afresh. Returns the inputs to run now.
    ///
    /// Errors: `--resume` without `--jsonl`; an input listed twice (with
    /// `--shard`/`--jsonl`, inputs are identified by path); with
    /// `--resume`, a record file written by another command, shard or
    /// input list; an unreadable or unwritable file.
    pub fn select(
        args: &ShardArgs,
        d: Describe,
        files: Vec<String>,
    ) -> Result<(Shard, Vec<String>), Error> {
        if args.resume && args.jsonl.is_none() {
            return Err(Error::Usage("--resume needs --jsonl OUT".into()));
        }
        let spec = args.shard.unwrap_or(ShardSpec::ALL);
        let mut index = std::collections::HashMap::new();
        if args.jsonl.is_some() || args.shard.is_some() {
            for (i, f) in files.iter().enumerate() {
                if index.insert(f.clone(), i).is_some() {
                    return Err(Error::Usage(format!(
                        "`{f}` is listed twice; with --shard/--jsonl every input must be listed once"
                    )));
                }
            }
        }
        let inputs: Vec<(usize, String)> = (files.iter().cloned().enumerate())
            .filter(|(_, f)| spec.contains(f))
            .collect();
        let header = Header {
            command: d.command.to_string(),
            shard: spec,
            total: files.len(),
            list: list_hash(&files),
            inputs,
            what: d.what.to_string(),
            words: d.words.iter().map(|w| w.to_string()).collect(),
            model: d.model.to_string(),
            aliases: d.aliases.to_vec(),
            meta: d.meta,
        };
        let mut run: Vec<String> = header.inputs.iter().map(|(_, f)| f.clone()).collect();
        let Some(path) = args.jsonl.clone() else {
            let shard = Shard {
                header,
                index,
                sink: None,
                path: String::new(),
            };
            return Ok((shard, run));
        };
        let io = |e: std::io::Error| Error::Io {
            path: path.clone(),
            message: e.to_string(),
        };
        let exists = std::path::Path::new(&path).exists();
        let file = if args.resume && exists {
            let (lines, torn) = read_lines(&path)?;
            let mut done = std::collections::HashSet::new();
            for l in &lines {
                match l {
                    Line::Shard(h) => {
                        if h.command != header.command
                            || h.shard != header.shard
                            || h.list != header.list
                        {
                            return Err(Error::Usage(format!(
                                "{path}: written by `{} --shard {}` on another input list or command; \
                                 remove it or drop --resume",
                                h.command, h.shard
                            )));
                        }
                    }
                    Line::Result(r) => {
                        done.insert(r.index);
                    }
                }
            }
            run = (header.inputs.iter())
                .filter(|(i, _)| !done.contains(i))
                .map(|(_, f)| f.clone())
                .collect();
            let f = std::fs::OpenOptions::new()
                .append(true)
                .open(&path)
                .map_err(io)?;
            if let Some(cut) = torn {
                f.set_len(cut as u64).map_err(io)?;
            }
            f
        } else {
            // Started afresh, but in append mode like a resumed file.
            let f = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&path)
                .map_err(io)?;
            f.set_len(0).map_err(io)?;
            f
        };
        let shard = Shard {
            header,
            index,
            sink: Some(Mutex::new(file)),
            path,
        };
        shard.append(&Line::Shard(shard.header.clone()))?;
        Ok((shard, run))
    }

    /// The position of `file` in the whole list.
    pub fn index_of(&self, file: &str) -> usize {
        self.index.get(file).copied().unwrap_or(0)
    }

    /// True when answers are recorded (`--jsonl`).
    pub fn records(&self) -> bool {
        self.sink.is_some()
    }

    /// Appends one input's record (no-op without `--jsonl`); its `index`
    /// is set from its `input`. Under `-v`, prints `done: INPUT: WORDS`
    /// on stderr (every batch command records each input here).
    ///
    /// Errors: the write fails.
    pub fn record(&self, mut r: Record) -> Result<(), Error> {
        if crate::cli::verbose() {
            let what = match &r.error {
                Some(_) => "error".to_string(),
                None => r.summary.join(", "),
            };
            eprintln!("done: {}: {what}", r.input);
        }
        if self.sink.is_none() {
            return Ok(());
        }
        r.index = self.index_of(&r.input);
        self.append(&Line::Result(r))
    }

    fn append(&self, line: &Line) -> Result<(), Error> {
        let Some(sink) = &self.sink else {
            return Ok(());
        };
        let mut text = serde_json::to_string(line).map_err(|e| Error::Usage(e.to_string()))?;
        text.push('\n');
        let mut f = sink.lock().unwrap_or_else(|e| e.into_inner());
        f.write_all(text.as_bytes())
            .and_then(|_| f.flush())
            .map_err(|e| Error::Io {
                path: self.path.clone(),
                message: e.to_string(),
            })
    }
}

/// A record with the fields every command fills; `index` is set by
/// [`Shard::record`].
pub fn record(input: &str, status: i32) -> Record {
    Record {
        index: 0,
        input: input.to_string(),
        checks: Vec::new(),
        summary: Vec::new(),
        status,
        json: Vec::new(),
        text: String::new(),
        herd: None,
        error: None,
        meta: serde_json::Value::Null,
    }
}

/// Combines exit statuses of inputs: 2 (error) over 1 (violation,
/// mismatch, difference) over 3 (unknown) over 0.
pub fn worst(a: i32, b: i32) -> i32 {
    let rank = |s: i32| match s {
        2 => 3,
        1 => 2,
        3 => 1,
        _ => 0,
    };
    if rank(b) > rank(a) {
        b
    } else {
        a
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_partition_the_inputs() {
        let files: Vec<String> = (0..500).map(|i| format!("dir/t{i}.litmus")).collect();
        for n in [1u32, 2, 3, 8] {
            let mut seen = vec![0; files.len()];
            for i in 1..=n {
                let s = ShardSpec { index: i, count: n };
                for (k, f) in files.iter().enumerate() {
                    if s.contains(f) {
                        seen[k] += 1;
                    }
                }
            }
            assert!(seen.iter().all(|&c| c == 1), "n = {n}");
        }
        // Stable across builds: fixed FNV-1a values.
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn parses_shard_specs() {
        assert_eq!(parse_shard("2/8"), Ok(ShardSpec { index: 2, count: 8 }));
        for bad in ["0/4", "5/4", "1/0", "x/4", "3", "1/2/3", ""] {
            assert!(parse_shard(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn worst_status_orders_error_violation_unknown() {
        assert_eq!(worst(0, 3), 3);
        assert_eq!(worst(3, 1), 1);
        assert_eq!(worst(1, 2), 2);
        assert_eq!(worst(2, 0), 2);
    }

    #[test]
    fn torn_last_line_is_dropped() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("o.jsonl");
        let r = Line::Result(record("a.litmus", 0));
        let text = format!("{}\n{{\"kind\":\"res", serde_json::to_string(&r).unwrap());
        std::fs::write(&p, &text).unwrap();
        let (lines, torn) = read_lines(p.to_str().unwrap()).unwrap();
        assert_eq!(lines, vec![r]);
        assert_eq!(torn, Some(text.rfind("{\"kind\":\"res").unwrap()));
        std::fs::write(&p, "garbage\n").unwrap();
        assert!(read_lines(p.to_str().unwrap()).is_err());
    }
}
