//! Front-end for Trencher's input format (the `.txt` programs of
//! `yegord/trencher`, thesis ch. 7): whitespace-separated tokens,
//! `thread NAME (initial S | transition S S CMD)* end`, prefix expressions.
//!
//! Commands: `read REG e` (REG := mem[e]), `write e_val e_addr`
//! (mem[e_addr] := e_val, value first), `local REG e`, `check e`
//! (assume e ≠ 0), `mfence`, `noop`, `lock`, `unlock`. Expressions:
//! `INT | OP2 e e | ! e | REG` with OP2 ∈ `== != < <= > >= && || + - * &`
//! (and the IR's other operators, which Trencher lacks: `/ % | ^`, the
//! unsigned `<u <=u >u >=u /u %u` and the shifts `<< >> >>u`,
//! docs/language.md). A token is an
//! integer if it reads as one (`-1`, `+5`); `#` starts a comment to the
//! end of the line. Memory is addressed by integers; there are no named
//! variables and no goals (the question is robustness).

use crate::diag::{Error, SourceFile, Span};
use crate::program::{BinOp, Command, Expr, Instr, LExpr, Program, Thread, UnOp, Width};

#[derive(Clone, Copy)]
struct Tok<'a> {
    text: &'a str,
    span: Span,
}

fn tokenize(src: &SourceFile) -> Result<Vec<Tok<'_>>, Error> {
    let text: &str = &src.text;
    let mut toks = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c == b'#' {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        let start = i;
        while i < bytes.len() && !bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        let t = &text[start..i];
        if let Some(bad) = t.chars().find(|ch| ch.is_control() || *ch == '\u{fffd}') {
            let off = start + t.find(bad).unwrap_or(0);
            return Err(src.error(
                Span::new(off, off + bad.len_utf8()),
                format!("unexpected character {bad:?} (is this a text file?)"),
            ));
        }
        toks.push(Tok {
            text: t,
            span: Span::new(start, i),
        });
    }
    Ok(toks)
}

/// Parses an integer token the way Trencher does (`-1`, `+5`, `12`).
fn as_int(t: &str) -> Option<Result<i64, ()>> {
    let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(t.parse::<i64>().map_err(|_| ()))
}

struct Parser<'a> {
    src: &'a SourceFile,
    toks: Vec<Tok<'a>>,
    pos: usize,
    width: Width,
    /// Thread names seen (duplicates are errors; linear in the threads).
    threads: crate::collections::HashSet<crate::program::intern::Sym>,
}

impl<'a> Parser<'a> {
    fn eof_span(&self) -> Span {
        let n = self.src.text.len();
        Span::new(n, n)
    }

    fn next(&mut self, what: &str) -> Result<Tok<'a>, Error> {
        if self.pos < self.toks.len() {
            self.pos += 1;
            Ok(self.toks[self.pos - 1])
        } else {
            Err(self.src.error(
                self.eof_span(),
                format!("unexpected end of file, expected {what}"),
            ))
        }
    }

    fn constant(&self, tok: &Tok, v: Result<i64, ()>) -> Result<i64, Error> {
        match v {
            Ok(v) if self.width.fits(v) => Ok(self.width.wrap(v)),
            _ => Err(self.src.error_help(
                tok.span,
                format!(
                    "constant {} does not fit in {} bits",
                    tok.text, self.width.0
                ),
                format!(
                    "values range over {}..={}; {}",
                    self.width.min(),
                    self.width.umax(),
                    self.width.raise_hint()
                ),
            )),
        }
    }

    fn expr(
        &mut self,
        thread: &mut Thread,
        prog: &mut Program,
        depth: usize,
    ) -> Result<LExpr, Error> {
        let tok = self.next("an expression")?;
        let (text, span) = (tok.text, tok.span);
        if depth > 200 {
            return Err(self
                .src
                .error(span, "expression nested too deeply (more than 200 levels)"));
        }
        if let Some(v) = as_int(text) {
            let t = Tok { text, span };
            return Ok(Expr::Const(self.constant(&t, v)?));
        }
        if text == "!" {
            let a = self.expr(thread, prog, depth + 1)?;
            return Ok(Expr::un(UnOp::Not, a));
        }
        if let Some(op) = BinOp::from_symbol(text) {
            let a = self.expr(thread, prog, depth + 1)?;
            let b = self.expr(thread, prog, depth + 1)?;
            return Ok(Expr::bin(op, a, b));
        }
        if is_keyword(text) {
            return Err(self.src.error(
                span,
                format!("expected an expression, found keyword `{text}`"),
            ));
        }
        Ok(Expr::Var(thread.reg(prog.names.intern(text))))
    }

    fn register(
        &mut self,
        thread: &mut Thread,
        prog: &mut Program,
    ) -> Result<crate::program::RegId, Error> {
        let tok = self.next("a register name")?;
        if as_int(tok.text).is_some()
            || BinOp::from_symbol(tok.text).is_some()
            || is_keyword(tok.text)
            || tok.text == "!"
        {
            return Err(self.src.error(
                tok.span,
                format!("expected a register name, found `{}`", tok.text),
            ));
        }
        let name = tok.text;
        Ok(thread.reg(prog.names.intern(name)))
    }

    fn command(
        &mut self,
        thread: &mut Thread,
        prog: &mut Program,
    ) -> Result<(Command, Span), Error> {
        let tok = self.next("a command")?;
        let (text, span) = (tok.text, tok.span);
        let cmd = match text {
            "read" => {
                let reg = self.register(thread, prog)?;
                let addr = self.expr(thread, prog, 0)?;
                Command::Load { reg, addr }
            }
            "write" => {
                let value = self.expr(thread, prog, 0)?;
                let addr = self.expr(thread, prog, 0)?;
                Command::Store { addr, value }
            }
            "local" => {
                let reg = self.register(thread, prog)?;
                let value = self.expr(thread, prog, 0)?;
                Command::Assign { reg, value }
            }
            "check" => Command::Assume(self.expr(thread, prog, 0)?),
            "mfence" => Command::Fence(crate::program::Fence::MFence),
            "noop" => Command::Nop,
            "lock" => Command::Lock,
            "unlock" => Command::Unlock,
            other => {
                return Err(self.src.error_help(
                    span,
                    format!("unknown command `{other}`"),
                    "commands are read, write, local, check, mfence, noop, lock, unlock",
                ))
            }
        };
        let end = self.toks[self.pos - 1].span;
        Ok((cmd, span.join(end)))
    }

    fn state_name(&mut self, prog: &mut Program) -> Result<crate::program::intern::Sym, Error> {
        let tok = self.next("a state name")?;
        if is_keyword(tok.text) {
            return Err(self.src.error(
                tok.span,
                format!("expected a state name, found keyword `{}`", tok.text),
            ));
        }
        let t = tok.text;
        Ok(prog.names.intern(t))
    }

    fn thread(&mut self, prog: &mut Program, start: Span) -> Result<Thread, Error> {
        let name_tok = self.next("a thread name")?;
        let (name_text, name_span) = (name_tok.text, name_tok.span);
        if is_keyword(name_text) {
            return Err(self.src.error(
                name_span,
                format!("expected a thread name, found keyword `{name_text}`"),
            ));
        }
        let name = prog.names.intern(name_text);
        if !self.threads.insert(name) {
            return Err(self
                .src
                .error(name_span, format!("duplicate thread name `{name_text}`")));
        }
        // The thread starts without states; `initial` names the initial one.
        let mut thread = Thread::new(name, name, start);
        thread.states.clear();
        let mut initial = None;
        loop {
            let tok = self.next("`initial`, `transition` or `end`")?;
            let (text, span) = (tok.text, tok.span);
            match text {
                "initial" => {
                    let s = self.state_name(prog)?;
                    initial = Some(thread.state(s));
                }
                "transition" => {
                    let from = self.state_name(prog)?;
                    let from = thread.state(from);
                    let to = self.state_name(prog)?;
                    let to = thread.state(to);
                    let (cmd, cspan) = self.command(&mut thread, prog)?;
                    thread.instrs.push(Instr {
                        from,
                        to,
                        cmd,
                        span: span.join(cspan),
                    });
                }
                "end" => {
                    thread.span = start.join(span);
                    break;
                }
                other => {
                    return Err(self.src.error_help(
                        span,
                        format!("unexpected `{other}` in thread `{name_text}`"),
                        "expected `initial STATE`, `transition FROM TO COMMAND` or `end`",
                    ))
                }
            }
        }
        match initial {
            Some(q) => thread.initial = q,
            None => {
                return Err(self.src.error(
                    name_span,
                    format!("thread `{name_text}` has no `initial` state"),
                ));
            }
        }
        Ok(thread)
    }
}

fn is_keyword(t: &str) -> bool {
    matches!(t, "thread" | "initial" | "transition" | "end")
}

/// Parses a Trencher program.
///
/// Errors: any syntax error (unknown command, missing `initial`, truncated
/// file, ...), a duplicate thread name, a constant that does not fit
/// `width`, or an empty program; each located at file:line:column.
pub fn parse(src: &SourceFile, width: Width) -> Result<Program, Error> {
    let toks = tokenize(src)?;
    let mut p = Parser {
        src,
        toks,
        pos: 0,
        width,
        threads: Default::default(),
    };
    let mut prog = Program {
        source: Some(src.clone()),
        ..Program::default()
    };
    while p.pos < p.toks.len() {
        let tok = p.next("`thread`")?;
        let (text, span) = (tok.text, tok.span);
        if text != "thread" {
            return Err(src.error(span, format!("expected `thread`, found `{text}`")));
        }
        let t = p.thread(&mut prog, span)?;
        prog.threads.push(t);
    }
    if prog.threads.is_empty() {
        return Err(src.error(p.eof_span(), "empty program: no `thread` found"));
    }
    Ok(prog)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::{RegId, StateId};

    fn parse_str(s: &str) -> Result<Program, Error> {
        parse(&SourceFile::new("t.txt", s), Width::DEFAULT)
    }

    #[test]
    fn parses_sb() {
        let p = parse_str(
            "# SB\nthread t1\ninitial q0\ntransition q0 q1 write 1 0\ntransition q1 q2 read r 1\nend\n\
             thread t2 initial q0 transition q0 q1 write 1 1 transition q1 q2 read r 0 end",
        )
        .unwrap();
        assert_eq!(p.threads.len(), 2);
        let t = &p.threads[0];
        assert_eq!(t.states.len(), 3);
        assert_eq!(
            t.instrs[0].cmd,
            Command::Store {
                addr: Expr::Const(0),
                value: Expr::Const(1)
            }
        );
        assert_eq!(
            t.instrs[1].cmd,
            Command::Load {
                reg: RegId(0),
                addr: Expr::Const(1)
            }
        );
        assert_eq!(t.instrs[1].from, StateId(1));
    }

    #[test]
    fn prefix_expressions_and_signed_ints() {
        let p = parse_str("thread t initial a transition a b check == + r -1 ! x end").unwrap();
        let want = Expr::bin(
            BinOp::Eq,
            Expr::bin(BinOp::Add, Expr::Var(RegId(0)), Expr::Const(-1)),
            Expr::un(UnOp::Not, Expr::Var(RegId(1))),
        );
        assert_eq!(p.threads[0].instrs[0].cmd, Command::Assume(want));
    }

    #[test]
    fn last_initial_wins() {
        let p = parse_str("thread t initial a initial b transition a b noop end").unwrap();
        assert_eq!(
            p.state_name(crate::program::ThreadId(0), p.threads[0].initial),
            "b"
        );
    }

    #[test]
    fn errors_are_located() {
        let e = parse_str("thread t\ninitial a\ntransition a b frob 1\nend")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("t.txt:3:16: error: unknown command `frob`"),
            "{e}"
        );
        let e = parse_str("thread t initial a transition a b write 1")
            .unwrap_err()
            .to_string();
        assert!(e.contains("unexpected end of file"), "{e}");
        let e = parse_str("thread t initial a transition a b write 99999999 0 end")
            .unwrap_err()
            .to_string();
        assert!(e.contains("does not fit in 16 bits"), "{e}");
        let e = parse_str("thread t transition a b noop end")
            .unwrap_err()
            .to_string();
        assert!(e.contains("no `initial` state"), "{e}");
        let e = parse_str("thread t initial a end thread t initial a end")
            .unwrap_err()
            .to_string();
        assert!(e.contains("duplicate thread name"), "{e}");
        let e = parse_str("  # nothing\n").unwrap_err().to_string();
        assert!(e.contains("empty program"), "{e}");
        let e = parse_str("thread t initial a transition a b check \u{0}\u{1} end")
            .unwrap_err()
            .to_string();
        assert!(e.contains("unexpected character"), "{e}");
    }
}
