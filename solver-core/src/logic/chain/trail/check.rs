//! Reads a written branch back and checks every link on the board by the rules alone, so
//! that tests hold the text a player reads to what the grid allows.

use std::collections::HashSet;

use super::Told;
use crate::logic::chain::state::{Start, cells};

/// A fact read back, with the facts the text says it follows from (none for the assumption
/// and for a fact restated to start a run).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Read {
    pub(crate) fact: Told,
    pub(crate) from: Vec<Told>,
}

/// Reads a fact, `r4c5=3` or `r4c5≠3`.
fn fact(text: &str) -> Result<Told, String> {
    let bad = || format!("not a fact: {text:?}");
    let rest = text.strip_prefix('r').ok_or_else(bad)?;
    let (r, rest) = rest.split_once('c').ok_or_else(bad)?;
    let (col, on, d) = if let Some((col, d)) = rest.split_once('=') {
        (col, true, d)
    } else if let Some((col, d)) = rest.split_once('≠') {
        (col, false, d)
    } else {
        return Err(bad());
    };
    let num = |s: &str| {
        s.parse::<usize>()
            .ok()
            .filter(|n| (1..=9).contains(n))
            .ok_or_else(bad)
    };
    Ok(((num(r)? - 1) * 9 + num(col)? - 1, num(d)? - 1, on))
}

/// Reads a branch in either notation: its facts in order, the assumption first.
pub(crate) fn read(text: &str) -> Result<Vec<Read>, String> {
    if text.starts_with('(') {
        eureka(text)
    } else {
        arrows(text)
    }
}

/// `(4)r1c2-(4)r1c7=(4)r5c7`.
fn eureka(text: &str) -> Result<Vec<Read>, String> {
    let mut nodes: Vec<(usize, usize)> = Vec::new();
    let mut signs: Vec<bool> = Vec::new();
    let mut rest = text;
    loop {
        let body = rest
            .strip_prefix('(')
            .ok_or_else(|| format!("no node at {rest:?}"))?;
        let (d, body) = body
            .split_once(')')
            .ok_or_else(|| format!("bad node at {rest:?}"))?;
        let end = body.find(['=', '-']).unwrap_or(body.len());
        let (c, _, _) = fact(&format!("{}={d}", &body[..end]))?;
        let d: usize = d.parse().map_err(|_| format!("bad digit in {rest:?}"))?;
        nodes.push((c, d - 1));
        if end == body.len() {
            break;
        }
        signs.push(body[end..].starts_with('='));
        rest = &body[end + 1..];
    }
    if signs.is_empty() {
        return Err(format!("a chain of one node: {text:?}"));
    }
    let mut out: Vec<Read> = Vec::new();
    for (k, &(c, d)) in nodes.iter().enumerate() {
        let on = if k == 0 { !signs[0] } else { signs[k - 1] };
        let from = out.last().map(|r| vec![r.fact]).unwrap_or_default();
        out.push(Read {
            fact: (c, d, on),
            from,
        });
    }
    Ok(out)
}

/// `r2c8=5 → r2c3≠5 → r4c3=5 (with r7c3≠5), r2c8=5 → r9c8≠5`.
fn arrows(text: &str) -> Result<Vec<Read>, String> {
    let mut out: Vec<Read> = Vec::new();
    for (s, segment) in split_outside_brackets(text, ", ").into_iter().enumerate() {
        let mut prev: Option<Told> = None;
        for (k, item) in segment.split(" → ").enumerate() {
            let (head, with) = match item.split_once(" (with ") {
                Some((head, with)) => {
                    let with = with
                        .strip_suffix(')')
                        .ok_or_else(|| format!("unclosed with: {item:?}"))?;
                    let list: Result<Vec<Told>, String> = with.split(", ").map(fact).collect();
                    (head, list?)
                }
                None => (item, Vec::new()),
            };
            let f = fact(head)?;
            if k == 0 {
                if !with.is_empty() {
                    return Err(format!("a run starts with a link: {item:?}"));
                }
                if s == 0 {
                    out.push(Read {
                        fact: f,
                        from: Vec::new(),
                    });
                }
            } else {
                let mut from = prev.into_iter().collect::<Vec<_>>();
                from.extend(with);
                out.push(Read { fact: f, from });
            }
            // A restated fact (a run's first) is checked as a premise of the next link.
            prev = Some(f);
        }
    }
    Ok(out)
}

/// `text` split at `sep` where it is not inside brackets.
fn split_outside_brackets<'a>(text: &'a str, sep: &str) -> Vec<&'a str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    let mut i = 0;
    while i < text.len() {
        let rest = &text[i..];
        if rest.starts_with('(') {
            depth += 1;
        } else if rest.starts_with(')') {
            depth -= 1;
        } else if depth == 0 && rest.starts_with(sep) {
            out.push(&text[start..i]);
            i += sep.len();
            start = i;
            continue;
        }
        i += rest.chars().next().map_or(1, char::len_utf8);
    }
    out.push(&text[start..]);
    out
}

/// Checks each link of a branch on the board: its facts are candidates, every fact it
/// follows from was shown before, and the rules make the fact follow from them. Returns the
/// facts shown (the assumption first).
pub(crate) fn check(s: &Start, branch: &[Read]) -> Result<Vec<Told>, String> {
    let mut shown: Vec<Told> = Vec::new();
    let mut known: HashSet<Told> = HashSet::new();
    for (k, r) in branch.iter().enumerate() {
        let (c, d, _) = r.fact;
        if s.digits(c) >> d & 1 == 0 {
            return Err(format!("{:?} is not a candidate", r.fact));
        }
        if k == 0 {
            if !r.from.is_empty() {
                return Err("the assumption follows from something".into());
            }
        } else {
            if let Some(p) = r.from.iter().find(|p| !known.contains(p)) {
                return Err(format!("{:?} rests on {p:?}, not shown before", r.fact));
            }
            if !follows(s, &r.from, r.fact) {
                return Err(format!("{:?} does not follow from {:?}", r.fact, r.from));
            }
        }
        if known.insert(r.fact) {
            shown.push(r.fact);
        }
    }
    Ok(shown)
}

/// Whether `fact` follows from the facts `from` on the board by one rule: a true fact
/// removes its digit from its peers and the other digits from its cell; the last digit of a
/// cell, or the last place of a digit in a house, is true; a digit whose places in a box
/// (line) lie in one line (box) is removed from the rest of that line (box).
pub(crate) fn follows(s: &Start, from: &[Told], (q, e, on): Told) -> bool {
    let t = s.tables;
    let off = |c: usize, d: usize| from.contains(&(c, d, false));
    if !on {
        let weak = from.iter().any(|&(c, d, was)| {
            was && ((c == q && d != e) || (d == e && t.peers[c] >> q & 1 != 0))
        });
        let locked = t.houses.iter().any(|&a| {
            let left: u128 = cells(s.cand[e] & a)
                .filter(|&c| !off(c, e))
                .fold(0, |m, c| m | 1 << c);
            left != 0
                && a >> q & 1 == 0
                && t.houses.iter().any(|&b| b >> q & 1 != 0 && left & !b == 0)
        });
        return weak || locked;
    }
    let cell = (0..9).all(|d| d == e || s.digits(q) >> d & 1 == 0 || off(q, d));
    let house = t
        .houses
        .iter()
        .any(|&h| h >> q & 1 != 0 && cells(s.cand[e] & h).all(|c| c == q || off(c, e)));
    cell || house
}

/// Whether the facts shown contradict each other: a fact both true and false, a cell with
/// every digit false, or a digit false in every place of a house.
pub(crate) fn contradicts(s: &Start, shown: &[Told]) -> bool {
    let set: HashSet<Told> = shown.iter().copied().collect();
    let both = shown.iter().any(|&(c, d, on)| set.contains(&(c, d, !on)));
    let cell = (0..81).any(|c| {
        s.digits(c) != 0
            && (0..9).all(|d| s.digits(c) >> d & 1 == 0 || set.contains(&(c, d, false)))
    });
    let house = s.tables.houses.iter().any(|&h| {
        (0..9).any(|d| {
            let places = s.cand[d] & h;
            places != 0 && cells(places).all(|c| set.contains(&(c, d, false)))
        })
    });
    both || cell || house
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_notations_read_back() {
        let e = read("(4)r1c2-(4)r1c7=(4)r5c7").expect("reads");
        let facts: Vec<Told> = e.iter().map(|r| r.fact).collect();
        assert_eq!(facts, [(1, 3, true), (6, 3, false), (42, 3, true)]);
        assert_eq!(e[2].from, [(6, 3, false)]);
        let a = read("r2c8=5 → r9c8≠5, r2c8=5 → r2c3≠5 → r4c3=5 (with r9c8≠5)").expect("reads");
        let facts: Vec<Told> = a.iter().map(|r| r.fact).collect();
        assert_eq!(
            facts,
            [(16, 4, true), (79, 4, false), (11, 4, false), (29, 4, true)]
        );
        assert_eq!(a[2].from, [(16, 4, true)]);
        assert_eq!(a[3].from, [(11, 4, false), (79, 4, false)]);
        assert!(read("r2c8=5 → r10c1≠5").is_err());
        assert!(read("(4)r1c2").is_err());
    }
}
