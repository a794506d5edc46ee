//! The text of a certificate's `lemmas.txt`: one lemma a line, the
//! axiom's name and the facts separated by tabs. A fact is `+` (present)
//! or `-` (absent) then `exec(E)`, `SET(E)` or `REL(A,B)` with herd's
//! names of the base sets and relations (`cat::base`) and event indices
//! of the unrolling; e.g. `tso\t+rf(3,7)\t-W(4)\t+exec(2)`.

use crate::cat::base::{BaseRel, BaseSet};
use crate::diag::{Error, SourceFile, Span};
use crate::engines::bounded::varisat::lemmas::{Fact, Item, Lemma};

/// The text of one fact (`+rf(3,7)`).
pub fn fact_text(f: &Fact) -> String {
    let sign = if f.present { '+' } else { '-' };
    match f.item {
        Item::Exec(e) => format!("{sign}exec({e})"),
        Item::Set(s, e) => format!("{sign}{}({e})", s.name()),
        Item::Rel(r, a, b) => format!("{sign}{}({a},{b})", r.name()),
    }
}

/// The text of `lemmas`, one a line.
pub fn to_text(lemmas: &[Lemma]) -> String {
    let mut out = String::new();
    for l in lemmas {
        out.push_str(&l.axiom);
        for f in &l.facts {
            out.push('\t');
            out.push_str(&fact_text(f));
        }
        out.push('\n');
    }
    out
}

/// Reads `lemmas.txt`.
///
/// Errors (located in `file`): an empty axiom name, a fact without sign,
/// an unknown set or relation name, a malformed event list.
pub fn parse(file: &SourceFile) -> Result<Vec<Lemma>, Error> {
    let mut out = Vec::new();
    let mut offset = 0;
    for line in file.text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let body = line.trim_end_matches(['\n', '\r']);
        if body.is_empty() {
            continue;
        }
        let mut fields = body.split('\t');
        let axiom = fields.next().unwrap_or_default();
        if axiom.is_empty() {
            return Err(file.error(Span::new(start, start + 1), "a lemma without axiom name"));
        }
        let mut col = axiom.len();
        let mut facts = Vec::new();
        for tok in fields {
            col += 1;
            let sp = Span::new(start + col, start + col + tok.len().max(1));
            col += tok.len();
            facts.push(parse_fact(tok).map_err(|m| file.error(sp, m))?);
        }
        facts.sort();
        facts.dedup();
        out.push(Lemma {
            axiom: axiom.to_string(),
            facts,
        });
    }
    Ok(out)
}

fn parse_fact(tok: &str) -> Result<Fact, String> {
    let present = match tok.chars().next() {
        Some('+') => true,
        Some('-') => false,
        _ => return Err(format!("fact `{tok}`: expected `+` or `-` first")),
    };
    let rest = &tok[1..];
    let (name, args) = rest
        .strip_suffix(')')
        .and_then(|r| r.split_once('('))
        .ok_or_else(|| format!("fact `{tok}`: expected NAME(EVENTS)"))?;
    let ev: Vec<usize> = args
        .split(',')
        .map(|a| a.trim().parse::<usize>())
        .collect::<Result<_, _>>()
        .map_err(|_| format!("fact `{tok}`: events are non-negative integers"))?;
    let item = match (name, ev.as_slice()) {
        ("exec", &[e]) => Item::Exec(e),
        (n, &[e]) => Item::Set(
            BaseSet::from_name(n).ok_or_else(|| format!("fact `{tok}`: no base set `{n}`"))?,
            e,
        ),
        (n, &[a, b]) => Item::Rel(
            BaseRel::from_name(n).ok_or_else(|| format!("fact `{tok}`: no base relation `{n}`"))?,
            a,
            b,
        ),
        _ => {
            return Err(format!(
                "fact `{tok}`: one event (a set) or two (a relation)"
            ))
        }
    };
    Ok(Fact { item, present })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_round_trips() {
        let l = Lemma {
            axiom: "tso".into(),
            facts: vec![
                Fact {
                    item: Item::Exec(2),
                    present: true,
                },
                Fact {
                    item: Item::Set(BaseSet::W, 4),
                    present: false,
                },
                Fact {
                    item: Item::Rel(BaseRel::Rf, 3, 7),
                    present: true,
                },
            ],
        };
        let text = to_text(std::slice::from_ref(&l));
        let back = parse(&SourceFile::new("l.txt", text)).unwrap();
        assert_eq!(back, vec![l]);
        let bad = parse(&SourceFile::new("l.txt", "tso\t+nope(1)\n")).unwrap_err();
        assert!(bad.to_string().contains("l.txt:1:5"), "{bad}");
    }
}
