//! Reads a written branch back and checks every link on the board by the rules alone, so
//! that tests hold the text a player reads to what the grid allows.

use std::collections::{HashMap, HashSet};

use super::Told;
use crate::logic::chain::state::{Start, cells};

/// A fact read back, with the facts the text says it follows from (none for the assumption
/// and for a fact restated to start a run).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Read {
    pub(crate) fact: Told,
    pub(crate) from: Vec<Told>,
    /// The inner chain that shows the fact, by number (nested chains).
    pub(crate) chain: Option<usize>,
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
            chain: None,
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
            let (head, chain) = match head.split_once(" [chain ") {
                Some((head, n)) => {
                    let n = n.strip_suffix(']').and_then(|n| n.parse().ok());
                    (
                        head,
                        Some(n.ok_or_else(|| format!("bad chain number: {item:?}"))?),
                    )
                }
                None => (head, None),
            };
            let f = fact(head)?;
            if k == 0 {
                if !with.is_empty() {
                    return Err(format!("a run starts with a link: {item:?}"));
                }
                // The assumption, or a fact an inner chain shows; else a restated fact.
                if s == 0 || chain.is_some() {
                    out.push(Read {
                        fact: f,
                        from: Vec::new(),
                        chain,
                    });
                }
            } else {
                let mut from = prev.into_iter().collect::<Vec<_>>();
                from.extend(with);
                out.push(Read {
                    fact: f,
                    from,
                    chain: None,
                });
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

/// Inner chains by number: each the text after `Chain N: `.
pub(crate) type Chains<'a> = HashMap<usize, &'a str>;

/// Checks each link of a branch on the board: its facts are candidates, every fact it
/// follows from was shown before, and the rules make the fact follow from them. Returns the
/// facts shown (the assumption first).
pub(crate) fn check(s: &Start, branch: &[Read]) -> Result<Vec<Told>, String> {
    check_within(s, branch, &HashSet::new(), &HashMap::new())
}

/// [`check`] for a branch inside another whose facts `outer` it may rest on; a fact an inner
/// chain shows is checked by that chain.
fn check_within(
    s: &Start,
    branch: &[Read],
    outer: &HashSet<Told>,
    chains: &Chains,
) -> Result<Vec<Told>, String> {
    let mut shown: Vec<Told> = Vec::new();
    let mut known: HashSet<Told> = outer.clone();
    for (k, r) in branch.iter().enumerate() {
        let (c, d, _) = r.fact;
        if s.digits(c) >> d & 1 == 0 {
            return Err(format!("{:?} is not a candidate", r.fact));
        }
        if let Some(n) = r.chain {
            let text = chains
                .get(&n)
                .ok_or_else(|| format!("no chain {n} written"))?;
            inner(s, text, &known, chains, r.fact)?;
        } else if k == 0 {
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

/// Checks an inner chain that shows `fact` inside a branch whose facts so far are `known`:
/// its assumption is the fact's opposite, and with the branch's facts it meets a
/// contradiction.
fn inner(
    s: &Start,
    text: &str,
    known: &HashSet<Told>,
    chains: &Chains,
    fact: Told,
) -> Result<(), String> {
    let (head, list) = text
        .rsplit_once(": ")
        .ok_or_else(|| format!("no trail in chain {text:?}"))?;
    if head.starts_with("each ") {
        return each(s, (head, list), known, chains, fact);
    }
    let shown = check_within(s, &read(list)?, known, chains)
        .map_err(|e| format!("{e} in chain {text:?}"))?;
    if shown.first() != Some(&not(fact)) {
        return Err(format!("chain {text:?} does not assume {:?}", not(fact)));
    }
    // The trail lists facts after what they rest on, not in the order found: the branch may
    // show a contradiction of its own before the chain, which is then true all the same.
    let mut all: Vec<Told> = known.iter().copied().collect();
    all.extend(&shown);
    if !contradicts(s, &all) {
        return Err(format!("chain {text:?} meets no contradiction"));
    }
    Ok(())
}

/// Checks an inner multiple forcing chain that shows `fact` inside a branch whose facts so
/// far are `known`: each of its branches shows the fact it names, which removes `fact`'s
/// candidate, and its assumptions are every digit of a cell, or every place of a digit in a
/// house, that the branch leaves.
fn each(
    s: &Start,
    (head, list): (&str, &str),
    known: &HashSet<Told>,
    chains: &Chains,
    fact: Told,
) -> Result<(), String> {
    let (_, end) = head
        .split_once(" leads to ")
        .ok_or_else(|| format!("no claim in chain {head:?}"))?;
    let end = self::fact(end)?;
    let removes = end == fact || (end.0 == fact.0 && end.2 && !fact.2 && end.1 != fact.1);
    if !removes {
        return Err(format!("{end:?} does not remove {fact:?}"));
    }
    let mut starts = Vec::new();
    for branch in list.split("; ") {
        let read = read(branch)?;
        let shown =
            check_within(s, &read, known, chains).map_err(|e| format!("{e} in chain {head:?}"))?;
        if !shown.contains(&end) && !known.contains(&end) {
            return Err(format!("a branch of {head:?} does not show {end:?}"));
        }
        starts.push(read.first().map(|r| r.fact).ok_or("an empty branch")?);
    }
    // The trail lists the branch's facts after what they rest on, not in the order found:
    // some it lists before the chain came after it, so the cases must cover at least what
    // the branch leaves.
    let gone = |c: usize, d: usize| known.contains(&(c, d, false));
    let (c, d, _) = starts[0];
    let cells_of: u128 = starts.iter().fold(0, |m, f| m | 1 << f.0);
    let digits_of: u16 = starts.iter().fold(0, |m, f| m | 1 << f.1);
    let mut left = (0..9).filter(|&e| s.digits(c) >> e & 1 != 0 && !gone(c, e));
    let cell = starts.iter().all(|f| f.0 == c && f.2) && left.all(|e| digits_of >> e & 1 != 0);
    let house = starts.iter().all(|f| f.1 == d && f.2)
        && s.tables
            .houses
            .iter()
            .any(|&h| cells_of & !h == 0 && cells(s.cand[d] & h & !cells_of).all(|q| gone(q, d)));
    if cell || house {
        Ok(())
    } else {
        Err(format!(
            "the assumptions {starts:?} leave cases out: {head:?}"
        ))
    }
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

/// The negation of a fact.
fn not((c, d, on): Told) -> Told {
    (c, d, !on)
}

/// Facts joined by " and ", read back.
fn fact_list(text: &str) -> Result<Vec<Told>, String> {
    text.split(" and ").map(fact).collect()
}

/// Whether the assumptions cover every case: a candidate and its absence, every digit of a
/// cell, or every place of a digit in a house.
fn exhaustive(s: &Start, starts: &[Told]) -> bool {
    if let [a, b] = starts
        && *a == not(*b)
    {
        return true;
    }
    if starts.len() < 2 || starts.iter().any(|f| !f.2) {
        return false;
    }
    let (c, d, _) = starts[0];
    let cells_of: u128 = starts.iter().fold(0, |m, f| m | 1 << f.0);
    let digits_of: u16 = starts.iter().fold(0, |m, f| m | 1 << f.1);
    let cell = starts.iter().all(|f| f.0 == c) && digits_of == s.digits(c);
    let house = starts.iter().all(|f| f.1 == d)
        && s.tables.houses.iter().any(|&h| s.cand[d] & h == cells_of);
    cell || house
}

/// What a chain step's sentence proves.
#[derive(Debug)]
pub(crate) enum Proof {
    /// Facts that every case leads to.
    Facts(Vec<Told>),
    /// A loop's facts: what sees a true and a false place of a digit in it goes.
    Loop(Vec<Told>),
}

/// What a chain step's sentence proves, each branch read back and checked link by link on
/// the board.
pub(crate) fn proves(s: &Start, text: &str) -> Result<Proof, String> {
    let body = text.split(" => ").next().unwrap_or(text);
    // A nested chain's inner chains follow its branch, numbered.
    let mut parts = body.split(". Chain ");
    let body = parts.next().unwrap_or(body);
    let mut chains = Chains::new();
    for part in parts {
        let (n, chain) = part
            .split_once(": ")
            .ok_or_else(|| format!("bad chain {part:?}"))?;
        let n = n.parse().map_err(|_| format!("bad chain number {n:?}"))?;
        chains.insert(n, chain);
    }
    let (head, list) = body
        .rsplit_once(": ")
        .ok_or_else(|| format!("no branches in {text:?}"))?;
    let mut shown: Vec<Vec<Told>> = Vec::new();
    for branch in list.split("; ") {
        let read = read(branch).map_err(|e| format!("{e} in {text:?}"))?;
        let facts = check_within(s, &read, &HashSet::new(), &chains)
            .map_err(|e| format!("{e} in {branch:?} of {text:?}"))?;
        shown.push(facts);
    }
    let starts: Vec<Told> = shown.iter().map(|b| b[0]).collect();
    if head.contains("a loop") {
        let (first, last) = (shown[0][0], read(list)?.last().map(|r| r.fact));
        return match (shown.len(), last) {
            (1, Some(last)) if last == first => Ok(Proof::Loop(shown[0].clone())),
            _ => Err(format!("not one closed loop: {text:?}")),
        };
    }
    // One assumption whose branch shows the facts named and a contradiction among them.
    let contradiction = |ends: &[Told]| {
        let named = ends.iter().all(|f| shown[0].contains(f));
        if shown.len() == 1 && named && contradicts(s, &shown[0]) {
            Ok(Proof::Facts(vec![not(starts[0])]))
        } else {
            Err(format!("no contradiction shown: {text:?}"))
        }
    };
    if let Some((_, both)) = head.split_once(" leads to both ") {
        return contradiction(&fact_list(both)?);
    }
    if head.contains(" leads to no ") {
        return contradiction(&[]);
    }
    let (_, ends) = head
        .split_once(" leads to ")
        .or_else(|| head.split_once(" lead to "))
        .ok_or_else(|| format!("no claim in {text:?}"))?;
    let ends = fact_list(ends)?;
    for (branch, facts) in shown.iter().enumerate() {
        if let Some(f) = ends.iter().find(|f| !facts.contains(f)) {
            return Err(format!("branch {branch} does not show {f:?}: {text:?}"));
        }
    }
    // One assumption that leads to its opposite is false.
    if shown.len() == 1 && ends == [not(starts[0])] {
        return Ok(Proof::Facts(ends));
    }
    if !exhaustive(s, &starts) {
        return Err(format!(
            "the assumptions {starts:?} leave cases out: {text:?}"
        ));
    }
    Ok(Proof::Facts(ends))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Grid;
    use crate::logic::board::Candidates;
    use crate::logic::chain::state::State;
    use crate::logic::engine;
    use crate::logic::step::{Found, Technique};
    use crate::logic::{RateOptions, unique_solution};

    /// Puzzles of a dataset rated `min` or more (unrated lines count as 0), every `every`-th
    /// of them.
    fn puzzles(file: &str, min: f64, every: usize) -> Vec<Grid> {
        let Some(path) = test_support::data_file(file) else {
            return Vec::new();
        };
        let text = std::fs::read_to_string(path).expect("the dataset reads");
        let hard: Vec<Grid> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .filter_map(|l| {
                let mut parts = l.split_whitespace();
                let puzzle = parts.next()?;
                let rating = parts.next().map_or(Some(0.0), |r| r.parse::<f64>().ok())?;
                (rating >= min).then(|| puzzle.parse().expect("a valid puzzle"))
            })
            .collect();
        hard.into_iter().step_by(every).collect()
    }

    /// Whether a step's changes are those its chains prove: a true fact places its digit
    /// (or removes the cell's others), a false one removes it; changes merged in from other
    /// chains of the same rating are said to be so.
    fn changes_proved(found: &Found, proved: &[Told]) -> Result<(), String> {
        let removes = |c: usize, d: usize| found.eliminations.contains(&(c as u16, d as u8 + 1));
        let mut own = 0;
        for &(c, d, on) in proved {
            let done = if on {
                let others: Vec<(u16, u8)> = found
                    .eliminations
                    .iter()
                    .copied()
                    .filter(|&(q, e)| usize::from(q) == c && usize::from(e) != d + 1)
                    .collect();
                let placed = found.placements.contains(&(c as u16, d as u8 + 1));
                own += if placed { 1 } else { others.len() };
                placed || !others.is_empty()
            } else {
                own += 1;
                removes(c, d)
            };
            if !done {
                return Err(format!("{:?} is not among the changes", (c, d, on)));
            }
        }
        let total = found.placements.len() + found.eliminations.len();
        let merged = found.text.contains("of the same rating");
        if total > own && !merged {
            return Err(format!("{} changes unproved", total - own));
        }
        Ok(())
    }

    /// Whether each removal of a loop sees a place of its digit shown true in the loop and
    /// one shown false, outside the loop's cells.
    fn loop_removes(s: &Start, facts: &[Told], removed: &[(u16, u8)]) -> Result<(), String> {
        for &(q, e) in removed {
            let (q, e) = (usize::from(q), usize::from(e) - 1);
            let sees = |on: bool| {
                facts
                    .iter()
                    .any(|&(c, d, was)| d == e && was == on && s.tables.peers[c] >> q & 1 != 0)
            };
            if facts.iter().any(|f| f.0 == q) || !sees(true) || !sees(false) {
                return Err(format!("the loop does not remove {}", e + 1));
            }
        }
        Ok(())
    }

    /// Checks every chain step of a hint-by-hint solve of `grid`; returns the steps checked by
    /// technique name.
    fn check_solve(grid: &Grid, seen: &mut std::collections::BTreeMap<String, usize>) {
        let options = RateOptions::default();
        let solution = unique_solution(grid, &options).expect("unique");
        let mut board = Candidates::from_grid(grid);
        engine::run(
            &mut board,
            &options,
            engine::next_hint,
            None,
            |found, board| {
                let Technique::Chain(name) = found.technique else {
                    return;
                };
                let step = found.to_step(board);
                let s = Start::new(State::from_board(board));
                let written = !matches!(
                    name,
                    "Aligned pair exclusion" | "Aligned triplet exclusion" | "VWXYZ-Wing"
                );
                if !written {
                    return;
                }
                // Chains of the same rating merged into one step each have their sentence.
                let body = step.text.split(" => ").next().unwrap_or_default();
                let mut proved = Vec::new();
                for text in body.split(". Also ") {
                    match proves(&s, text).unwrap_or_else(|e| panic!("{grid:?}: {e}")) {
                        Proof::Facts(facts) => proved.extend(facts),
                        Proof::Loop(facts) => loop_removes(&s, &facts, &found.eliminations)
                            .unwrap_or_else(|e| panic!("{e}: {}", step.text)),
                    }
                }
                for &(c, d, on) in &proved {
                    let holds = solution.cells()[c] == d as u8 + 1;
                    assert_eq!(holds, on, "{grid:?}: {} is false", step.text);
                }
                if !proved.is_empty() {
                    changes_proved(found, &proved).unwrap_or_else(|e| panic!("{e}: {}", step.text));
                }
                *seen.entry(String::from(name)).or_default() += 1;
            },
        );
    }

    #[test]
    fn every_chain_step_writes_links_that_hold_on_its_grid() {
        // Rated puzzles of SE 6.2 and up, where chains start: all of them in release.
        let every = if cfg!(debug_assertions) { 20 } else { 1 };
        let puzzles = puzzles("se_rated_public.txt", 6.2, every);
        if puzzles.is_empty() {
            return; // `data_file` said why, or failed in CI.
        }
        let mut seen = std::collections::BTreeMap::new();
        for grid in &puzzles {
            check_solve(grid, &mut seen);
        }
        eprintln!("chain steps checked: {seen:?}");
        for name in [
            "Forcing chain",
            "Dynamic forcing chain",
            "Nishio forcing chain",
        ] {
            assert!(seen.contains_key(name), "no {name} met: {seen:?}");
        }
    }

    #[test]
    fn links_hold_only_where_the_rules_make_them() {
        let grid: Grid =
            "9...5...1..68.49...........7.......6.5.....3...8...4...3..7..9....4.5...5.92.61.4"
                .parse()
                .expect("a valid puzzle");
        let s = Start::new(State::from_board(&Candidates::from_grid(&grid)));
        // A house where a digit has three places: one place's absence alone places nothing;
        // with the second's it places the third.
        let (h, d) = (0..27)
            .flat_map(|h| (0..9).map(move |d| (h, d)))
            .find(|&(h, d)| (s.cand[d] & s.tables.houses[h]).count_ones() == 3)
            .expect("a house with three places");
        let places: Vec<usize> = cells(s.cand[d] & s.tables.houses[h]).collect();
        let (a, b, c) = (places[0], places[1], places[2]);
        assert!(!follows(&s, &[(a, d, false)], (c, d, true)));
        assert!(follows(&s, &[(a, d, false), (b, d, false)], (c, d, true)));
        // A true fact removes its digit from its peers and nothing from other cells.
        assert!(follows(&s, &[(a, d, true)], (c, d, false)));
        let far = cells(s.cand[d] & !s.tables.peers[a])
            .find(|&q| q != a)
            .expect("a place out of sight");
        assert!(!follows(&s, &[(a, d, true)], (far, d, false)));
        // A branch resting on a fact it never showed is refused.
        let branch = vec![
            Read {
                fact: (a, d, true),
                from: Vec::new(),
                chain: None,
            },
            Read {
                fact: (c, d, true),
                from: vec![(a, d, false), (b, d, false)],
                chain: None,
            },
        ];
        assert!(check(&s, &branch).is_err());
    }

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

    #[test]
    fn chains_with_locked_candidates_inside_write_links_that_hold_on_their_grid() {
        // The forum's hardest puzzles need dynamic (+) chains.
        let every = if cfg!(debug_assertions) { 75 } else { 15 };
        let puzzles = puzzles("puzzles6_forum_hardest_1106", 0.0, every);
        if puzzles.is_empty() {
            return; // `data_file` said why, or failed in CI.
        }
        let mut seen = std::collections::BTreeMap::new();
        for grid in &puzzles {
            check_solve(grid, &mut seen);
        }
        eprintln!("chain steps checked: {seen:?}");
        assert!(seen.contains_key("Dynamic forcing chain (+)"), "{seen:?}");
    }

    #[test]
    fn nested_chains_write_their_inner_chains_link_by_link() {
        // Puzzles SE rates 11 or more need nested chains.
        let every = if cfg!(debug_assertions) { 4000 } else { 200 };
        let puzzles = puzzles("puzzles5_forum_hardest_1905_11+", 0.0, every);
        if puzzles.is_empty() {
            return; // `data_file` said why, or failed in CI.
        }
        let mut seen = std::collections::BTreeMap::new();
        for grid in &puzzles {
            check_solve(grid, &mut seen);
        }
        eprintln!("chain steps checked: {seen:?}");
        assert!(seen.contains_key("Nested forcing chain"), "{seen:?}");
    }
}
