//! SV-COMP task definitions (`TASK.yml`, format 2.0 and 1.0 as
//! sv-benchmarks writes them): the input files (relative to the task
//! file), the properties with their expected verdicts, and the options
//! `language` and `data_model` (ILP32 or LP64, which give the width of
//! the program's values).

use crate::diag::{Error, SourceFile, Span};
use crate::program::Width;
use std::path::{Path, PathBuf};
use yaml_rust2::{Yaml, YamlLoader};

/// The property file name of "no call of `reach_error()`".
pub const UNREACH_CALL: &str = "unreach-call.prp";

/// SV-COMP's data models (the sizes of C's types).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataModel {
    /// `int`, `long` and pointers of 32 bits.
    Ilp32,
    /// `int` of 32 bits, `long` and pointers of 64 bits.
    Lp64,
}

impl DataModel {
    /// The width of the program's values: the C front-end gives every
    /// scalar one cell of one width (docs/c.md), so the width of pointers
    /// and `long` — 32 bits under ILP32, 64 under LP64.
    pub fn width(self) -> Width {
        match self {
            DataModel::Ilp32 => Width(32),
            DataModel::Lp64 => Width(64),
        }
    }

    /// The name in task files (`ILP32`, `LP64`).
    pub fn name(self) -> &'static str {
        match self {
            DataModel::Ilp32 => "ILP32",
            DataModel::Lp64 => "LP64",
        }
    }
}

/// A task whose expected verdict does not hold for its input file as
/// shipped (docs/svcomp.md, "Disputed labels").
#[derive(Clone, Copy, Debug)]
pub struct DisputedLabel {
    /// The input file's name.
    pub input: &'static str,
    /// Hex SHA-256 of the input file's bytes.
    pub input_sha256: &'static str,
    /// Why the label does not hold.
    pub why: &'static str,
}

/// The disputed labels known (docs/svcomp.md, "Disputed labels").
pub const DISPUTED_LABELS: &[DisputedLabel] = &[DisputedLabel {
    input: "37_stack_lock_p0_vs_concur.i",
    input_sha256: "7b2b2cfd17a2ef5a24df214fb2e1015ae0c596bb494f8927c8e23fc6658b2025",
    why: "label `true` disputed: in the shipped file `if(newTop == 0) if(!(0)) {abort();} else{...}` \
          the `else` belongs to the inner `if` (C11 6.8.4.1p3), so `push` never sets `top` and \
          `assert(top != 0)` fails on the first push (docs/svcomp.md)",
}];

/// One property of a task.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Property {
    /// The property file as written (relative to the task file).
    pub file: String,
    /// `expected_verdict` (`true`: the property holds), if stated.
    pub expected: Option<bool>,
}

/// A task definition.
#[derive(Clone, Debug)]
pub struct Task {
    /// The task file.
    pub path: PathBuf,
    /// The input files, resolved against the task file's directory.
    pub input_files: Vec<PathBuf>,
    /// The input files as the task file names them.
    pub input_names: Vec<String>,
    /// The properties, in order.
    pub properties: Vec<Property>,
    /// `options.language` (`C` when absent).
    pub language: String,
    /// `options.data_model` (ILP32 when absent).
    pub data_model: DataModel,
}

/// The deepest nesting of YAML collections a task file may have (a task
/// file nests three deep); the YAML loader recurses once per level, so a
/// deeper file is refused before it is loaded, never a stack overflow.
pub const MAX_YAML_DEPTH: usize = 64;

/// A YAML error at character `index` of `src` (the YAML parser counts
/// characters, spans count bytes), located and rendered `YAML: MSG`.
fn yaml_error(src: &SourceFile, index: usize, msg: &str) -> Error {
    let at = (src.text.char_indices().nth(index)).map_or(src.text.len(), |(b, _)| b);
    let end = src.text[at..]
        .chars()
        .next()
        .map_or(at, |c| at + c.len_utf8());
    src.error(Span::new(at, end), format!("YAML: {msg}"))
}

/// Checks that no collection of `src` nests deeper than
/// [`MAX_YAML_DEPTH`], reading YAML events (the event parser keeps its
/// states on the heap).
///
/// Errors: a YAML syntax error; nesting too deep (located at the
/// collection that is one too deep); an alias.
fn check_nesting(src: &SourceFile) -> Result<(), Error> {
    use yaml_rust2::parser::{Event, Parser};
    let mut parser = Parser::new_from_str(&src.text);
    let mut depth = 0usize;
    loop {
        let (ev, mark) = parser
            .next_token()
            .map_err(|e| yaml_error(src, e.marker().index(), e.info()))?;
        match ev {
            Event::SequenceStart(..) | Event::MappingStart(..) => {
                depth += 1;
                if depth > MAX_YAML_DEPTH {
                    return Err(yaml_error(
                        src,
                        mark.index(),
                        &format!("collections nested deeper than {MAX_YAML_DEPTH}"),
                    ));
                }
            }
            Event::SequenceEnd | Event::MappingEnd => depth = depth.saturating_sub(1),
            // The loader copies an alias's node at each use: nested
            // aliases grow exponentially (task files use none).
            Event::Alias(_) => {
                return Err(yaml_error(
                    src,
                    mark.index(),
                    "aliases (`*NAME`) are not read in task files",
                ))
            }
            Event::StreamEnd => return Ok(()),
            _ => {}
        }
    }
}

impl Task {
    /// The `unreach-call` property, if the task has one.
    pub fn reach_property(&self) -> Option<&Property> {
        self.properties
            .iter()
            .find(|p| p.file.ends_with(UNREACH_CALL))
    }

    /// The expected verdict of the `unreach-call` property.
    pub fn expected(&self) -> Option<bool> {
        self.reach_property().and_then(|p| p.expected)
    }

    /// Why the expected verdict is wrong for the input as shipped, when
    /// it is one of [`DISPUTED_LABELS`] (matched by the input's SHA-256,
    /// so a corrected file is scored normally). The answer is still
    /// scored against the label (a disagreement, never counted right);
    /// this only says why.
    pub fn disputed_label(&self) -> Option<&'static str> {
        let [input] = self.input_files.as_slice() else {
            return None;
        };
        let hash = sha256_file(input);
        DISPUTED_LABELS
            .iter()
            .find(|d| d.input_sha256 == hash)
            .map(|d| d.why)
    }

    /// Reads a task file.
    ///
    /// Errors: the file cannot be read ([`Error::Io`]); it is not YAML or
    /// lacks `input_files`, or a field has the wrong type, or the data
    /// model is neither ILP32 nor LP64 (a located [`Error::Input`]).
    pub fn read(path: &Path) -> Result<Task, Error> {
        let src = SourceFile::read(&path.to_string_lossy())?;
        Task::parse(&src)
    }

    /// Parses the text of a task file (`src.path` locates the inputs).
    ///
    /// Errors: as [`Task::read`].
    pub fn parse(src: &SourceFile) -> Result<Task, Error> {
        let whole = Span::new(0, src.text.len().min(1));
        check_nesting(src)?;
        let docs = YamlLoader::load_from_str(&src.text)
            .map_err(|e| yaml_error(src, e.marker().index(), e.info()))?;
        let doc = docs.first().cloned().unwrap_or(Yaml::Null);
        let bad = |what: &str| src.error(whole, format!("task definition: {what}"));
        let dir = Path::new(&*src.path)
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let input_names: Vec<String> = match &doc["input_files"] {
            Yaml::String(s) => vec![s.clone()],
            Yaml::Array(a) => a
                .iter()
                .map(|x| x.as_str().map(str::to_string))
                .collect::<Option<_>>()
                .ok_or_else(|| bad("`input_files` must be a string or a list of strings"))?,
            _ => return Err(bad("no `input_files`")),
        };
        let mut properties = Vec::new();
        if let Some(ps) = doc["properties"].as_vec() {
            for p in ps {
                let file = p["property_file"]
                    .as_str()
                    .ok_or_else(|| bad("a property without `property_file`"))?
                    .to_string();
                let expected = match &p["expected_verdict"] {
                    Yaml::Boolean(b) => Some(*b),
                    Yaml::BadValue | Yaml::Null => None,
                    _ => return Err(bad("`expected_verdict` must be true or false")),
                };
                properties.push(Property { file, expected });
            }
        }
        let opts = &doc["options"];
        let language = opts["language"].as_str().unwrap_or("C").to_string();
        let data_model = match opts["data_model"].as_str() {
            None | Some("ILP32") => DataModel::Ilp32,
            Some("LP64") => DataModel::Lp64,
            Some(other) => {
                return Err(bad(&format!(
                    "data model `{other}` (expected ILP32 or LP64)"
                )))
            }
        };
        Ok(Task {
            path: PathBuf::from(&*src.path),
            input_files: input_names.iter().map(|n| dir.join(n)).collect(),
            input_names,
            properties,
            language,
            data_model,
        })
    }
}

/// Hex SHA-256 of a file's bytes (empty when unreadable): a task's input
/// as SV-COMP names it (witness `programhash`, disputed labels).
pub fn sha256_file(path: &std::path::Path) -> String {
    use sha2::{Digest, Sha256};
    std::fs::read(path)
        .map(|b| format!("{:x}", Sha256::digest(&b)))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_format_2_task() {
        let text = "format_version: '2.0'\n# comment\ninput_files: 'a.i'\n\nproperties:\n  - property_file: ../properties/unreach-call.prp\n    expected_verdict: false\n  - property_file: ../properties/no-data-race.prp\n\noptions:\n  language: C\n  data_model: LP64\n";
        let t = Task::parse(&SourceFile::new("dir/t.yml", text)).unwrap();
        assert_eq!(t.input_files, vec![PathBuf::from("dir/a.i")]);
        assert_eq!(t.expected(), Some(false));
        assert_eq!(t.properties.len(), 2);
        assert_eq!(t.data_model, DataModel::Lp64);
        assert_eq!(t.data_model.width(), Width(64));
    }

    #[test]
    fn rejects_bad_tasks() {
        for text in [
            "properties: []\n",
            "input_files: [1]\n",
            "input_files: a.i\noptions:\n  data_model: LLP64\n",
            "input_files: [a.i\n",
        ] {
            let e = Task::parse(&SourceFile::new("t.yml", text)).unwrap_err();
            assert!(matches!(e, Error::Input(_)), "{text}: {e}");
        }
    }
}
