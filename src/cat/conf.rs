//! herd's configuration files (`-conf`, e.g. the kernel's
//! `linux-kernel.cfg`): the keys that give a test's meaning — `macros`
//! (the C macro file), `bell`, `model`, `variant` — and herd's search path
//! for the files they name: the `.cfg` file's folder, then each `-I DIR`
//! in order. The other keys (graph and output options) are ignored, as
//! they change nothing herd answers.

use crate::diag::{Error, SourceFile, Span};
use std::path::{Path, PathBuf};

/// A read configuration: the files it names, found on the search path.
#[derive(Clone, Debug)]
pub struct HerdConf {
    /// The configuration file.
    pub source: SourceFile,
    /// `macros FILE`: the C macro file, if any.
    pub macros: Option<PathBuf>,
    /// `bell FILE`, if any.
    pub bell: Option<PathBuf>,
    /// `model FILE`.
    pub model: PathBuf,
    /// `variant NAME,…`: the variants the model's `if "NAME"` tests see.
    pub variants: Vec<String>,
    /// The search path: the configuration's folder, then each `-I DIR`.
    pub path: Vec<PathBuf>,
}

/// The first file named `name` on `path` (an absolute `name` as is).
pub fn find(name: &str, path: &[PathBuf]) -> Option<PathBuf> {
    let p = Path::new(name);
    if p.is_absolute() {
        return p.is_file().then(|| p.to_path_buf());
    }
    path.iter().map(|d| d.join(p)).find(|f| f.is_file())
}

impl HerdConf {
    /// Reads configuration file `file` with the extra folders `includes`
    /// (`-I DIR`, searched after the file's folder). Each line is `KEY
    /// VALUE`; `#` and `//` start comments.
    ///
    /// Errors: the file cannot be read; a file a key names is not on the
    /// search path (located at the key); no `model` key.
    pub fn read(file: &str, includes: &[String]) -> Result<HerdConf, Error> {
        HerdConf::parse(SourceFile::read(file)?, includes)
    }

    /// Reads the configuration text `source` (its path gives the first
    /// folder of the search path) with the extra folders `includes`.
    ///
    /// Errors: as [`HerdConf::read`], but for reading the file itself.
    pub fn parse(source: SourceFile, includes: &[String]) -> Result<HerdConf, Error> {
        let dir = Path::new(&*source.path)
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .to_path_buf();
        let mut path = vec![dir];
        path.extend(includes.iter().map(PathBuf::from));
        let mut conf = HerdConf {
            source: source.clone(),
            macros: None,
            bell: None,
            model: PathBuf::new(),
            variants: Vec::new(),
            path,
        };
        let mut model = false;
        let mut off = 0;
        for line in source.text.split_inclusive('\n') {
            let start = off;
            off += line.len();
            let body = line.split("//").next().unwrap_or("");
            let body = body.split('#').next().unwrap_or("").trim();
            let Some((key, value)) = body.split_once(char::is_whitespace) else {
                continue;
            };
            let value = value.trim();
            let lead = line.len() - line.trim_start().len();
            let span = Span::new(start + lead, start + lead + body.len());
            let locate = |conf: &HerdConf| {
                find(value, &conf.path).ok_or_else(|| {
                    source.error(
                        span,
                        format!(
                            "`{value}` is not in {}",
                            conf.path
                                .iter()
                                .map(|p| p.display().to_string())
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    )
                })
            };
            match key {
                "macros" => conf.macros = Some(locate(&conf)?),
                "bell" => conf.bell = Some(locate(&conf)?),
                "model" => {
                    conf.model = locate(&conf)?;
                    model = true;
                }
                "variant" => conf
                    .variants
                    .extend(value.split(',').map(|v| v.trim().to_string())),
                _ => {}
            }
        }
        if !model {
            return Err(source.error(
                Span::new(0, 0),
                "no `model FILE` line in this configuration",
            ));
        }
        Ok(conf)
    }

    /// The model it names: the bell file's items, then the model's.
    ///
    /// Errors: the files' syntax errors, and the constructs of herd's cat
    /// language this dialect does not read yet (located, named).
    pub fn load_model(&self) -> Result<super::Model, Error> {
        let bell = match &self.bell {
            Some(b) => vec![SourceFile::read(&b.to_string_lossy())?],
            None => Vec::new(),
        };
        let opts = super::parse::herd::Options {
            variants: self.variants.clone(),
            path: self.path.clone(),
            c_sets: true,
        };
        super::parse::parse_model_files(
            &bell,
            &SourceFile::read(&self.model.to_string_lossy())?,
            super::parse::Origin::Disk,
            &opts,
        )
    }
}
