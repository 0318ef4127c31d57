//! The chain family, tried when no basic technique applies (9x9 only), in SE's order:
//! aligned pair exclusion, forcing X/Y/XY-chains, aligned triplet exclusion, Nishio, static multiple forcing chains, dynamic
//! forcing chains, dynamic forcing chains (+), then nested forcing chains of growing depth
//! (static, multiple, then dynamic chains inside).
//! Each level reports its lowest-rated deduction (nested levels their first).

mod closure;
mod deduction;
mod exclusion;
mod forcing;
mod implications;
mod kept;
mod multiple;
mod nested;
mod nishio;
mod propagate;
mod rating;
mod replay;
mod single;
mod spare;
mod state;
mod trace;
mod trail;
mod wing;

use std::cell::OnceCell;

use super::board::Candidates;
use super::step::{Found, Technique};
use super::wording;
use closure::Reaches;
use deduction::Deduction;
use state::{Start, State};
use trace::Mode;

/// The deepest propagation level tried: 5 (dynamic (+) chains nested in a chain, close to
/// trial and error of depth two) solves every puzzle of the forum's hardest list; 6 and 7
/// nest twice and are a last resort (each level costs some 200 times the one below).
const DEEPEST: u8 = 7;

/// The engine's hook: the simplest chain-family step on a 9x9 board.
pub(crate) fn finder(board: &Candidates) -> Option<Found> {
    let s = Start::new(State::from_board(board));
    find(&s).map(into_found)
}

/// The first level that finds a deduction.
fn find(s: &Start) -> Option<Deduction> {
    // Static X/Y chains and static multiple forcing chains both start from the closure of
    // the board's static links: made once, when first asked for.
    let closure = OnceCell::new();
    let closure = || closure.get_or_init(|| Reaches::new(s));
    lowest(wing::wing(s, 4), exclusion::aligned_pair(s))
        .or_else(|| single::static_chains(s, closure()))
        .or_else(|| exclusion::aligned_triple(s))
        .or_else(|| nishio::nishio(s))
        .or_else(|| forcing::static_forcing(s, closure()))
        .or_else(|| forcing::dynamic_forcing(s))
        .or_else(|| {
            let name = "Dynamic forcing chain (+)";
            multiple::multiple(s, Mode::Plus, name, rating::PLUS)
        })
        .or_else(|| {
            let mut memo = nested::Memo::recall(s);
            let found = (2..=DEEPEST).find_map(|level| nested::nested(s, level, &mut memo));
            memo.keep(s);
            found
        })
}

/// The lower-rated of two deductions, both when they tie (SE sorts one producer's hints).
fn lowest(a: Option<Deduction>, b: Option<Deduction>) -> Option<Deduction> {
    let mut best = a;
    if let Some(b) = b {
        b.offer(&mut best);
    }
    best
}

/// The engine's form of a deduction.
fn into_found(d: Deduction) -> Found {
    let text = if wording::read(d.tenths) {
        d.sentence()
    } else {
        String::new()
    };
    Found {
        technique: Technique::Chain(d.name),
        tenths: d.tenths,
        support: d.support,
        placements: d.placements,
        eliminations: d.eliminations,
        text,
    }
}
