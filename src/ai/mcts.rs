//! Monte Carlo tree search (UCT) for any number of players. Open loop: a node
//! is reached by replaying moves from the root, so a game with chance (a
//! kettle, dice) may reach different positions through the same moves; each
//! playout reseeds the game's random draws. A node with more moves than can be
//! listed grows by sampling (progressive widening). Rewards: 1 to a sole
//! winner, shared equally among players who share the win.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::{Budget, Choice, Clock};
use crate::engine::{Engine, Halt, Move};

/// Exploration constant of UCT.
const C: f64 = 1.2;
/// Moves a node lists at most; beyond, it samples.
const LIST: u128 = 256;
/// Longest playout, in plies.
const PLAYOUT: usize = 2_000;

struct Node {
    mover: usize,
    visits: f64,
    /// Sum of rewards for each player.
    reward: Vec<f64>,
    children: Vec<(Move, usize)>,
    /// Moves not yet tried (when they could be listed).
    untried: Vec<Move>,
    /// Whether the moves must be sampled (too many to list).
    sampled: bool,
    expanded: bool,
}

impl Node {
    fn new(players: usize) -> Node {
        Node {
            mover: 0,
            visits: 0.0,
            reward: vec![0.0; players],
            children: vec![],
            untried: vec![],
            sampled: false,
            expanded: false,
        }
    }
}

/// Searches from the position of `e`, which must be a copy of the game
/// ([`super::choose`] makes one): each playout reseeds its draws.
pub(crate) fn search(e: &mut Engine, budget: Budget, rng: &mut ChaCha8Rng) -> Result<Option<Choice>, Halt> {
    let players = e.game.players.len();
    let mut nodes = vec![Node::new(players)];
    let mut clock = Clock::new(budget, 2_000);
    if e.count_moves()? == 0 {
        return Ok(None);
    }
    let mut path: Vec<usize> = Vec::new();
    while !clock.spent() {
        clock.used += 1;
        // Each playout sees its own chance.
        e.set_seed(rng.r#gen());
        let mut made = 0;
        path.clear();
        path.push(0);
        let mut at = 0;
        // Selection and expansion.
        loop {
            if !nodes[at].expanded
                && let Err(h) = expand(&mut nodes[at], e)
            {
                for _ in 0..made {
                    e.undo();
                }
                return Err(h);
            }
            let n = &nodes[at];
            if n.untried.is_empty() && !n.sampled && n.children.is_empty() {
                break; // the game is over here
            }
            let widen = n.sampled && (n.children.len() as f64) < 2.0 * (n.visits + 1.0).sqrt();
            let next = if !n.untried.is_empty() || widen {
                let mv = if widen {
                    match e.sample_move(rng) {
                        Ok(Some(m)) => m,
                        Ok(None) => break,
                        Err(h) => {
                            for _ in 0..made {
                                e.undo();
                            }
                            return Err(h);
                        }
                    }
                } else {
                    let i = rng.gen_range(0..nodes[at].untried.len());
                    nodes[at].untried.swap_remove(i)
                };
                match nodes[at].children.iter().find(|(m, _)| *m == mv) {
                    Some(&(_, child)) => Some((mv, child)),
                    None => {
                        nodes.push(Node::new(players));
                        let child = nodes.len() - 1;
                        nodes[at].children.push((mv, child));
                        Some((mv, child))
                    }
                }
            } else {
                select(&nodes, at)
            };
            let Some((mv, child)) = next else { break };
            // A move of another chance may be illegal here: the playout stops.
            if e.apply(mv).is_err() {
                break;
            }
            made += 1;
            path.push(child);
            at = child;
            if nodes[child].visits == 0.0 {
                break;
            }
        }
        // Playout; whatever happens, the moves made are unmade.
        let reward = playout(e, rng, players, &mut made, &clock);
        for _ in 0..made {
            e.undo();
        }
        let reward = reward?;
        for &n in &path {
            nodes[n].visits += 1.0;
            for (total, r) in nodes[n].reward.iter_mut().zip(&reward) {
                *total += r;
            }
        }
    }
    // Nothing searched (the budget ran out first): any legal move.
    if nodes[0].children.is_empty() {
        return Ok(e.sample_move(rng)?.map(|mv| Choice { mv, value: None, info: "no search".into() }));
    }
    let root = &nodes[0];
    let me = e.to_move() as usize;
    let best = root.children.iter().max_by(|a, b| nodes[a.1].visits.total_cmp(&nodes[b.1].visits));
    Ok(best.map(|&(mv, c)| {
        let n = &nodes[c];
        Choice { mv, value: Some(n.reward[me] / n.visits.max(1.0)), info: format!("{} playouts", clock.used) }
    }))
}

fn expand(n: &mut Node, e: &mut Engine) -> Result<(), Halt> {
    n.expanded = true;
    n.mover = e.to_move() as usize;
    let count = e.count_moves()?;
    if count > LIST {
        n.sampled = true;
    } else if count > 0 {
        e.legal_moves(&mut n.untried)?;
    }
    Ok(())
}

/// The child with the best UCT value for the player to move here.
fn select(nodes: &[Node], at: usize) -> Option<(Move, usize)> {
    let n = &nodes[at];
    let ln = (n.visits.max(1.0)).ln();
    n.children
        .iter()
        .max_by(|a, b| {
            let score = |c: usize| {
                let k = &nodes[c];
                if k.visits == 0.0 {
                    return f64::INFINITY;
                }
                k.reward[n.mover] / k.visits + C * (ln / k.visits).sqrt()
            };
            score(a.1).total_cmp(&score(b.1))
        })
        .copied()
}

/// Random moves to the end (or the longest playout); the rewards there.
fn playout(
    e: &mut Engine,
    rng: &mut ChaCha8Rng,
    players: usize,
    made: &mut usize,
    clock: &Clock,
) -> Result<Vec<f64>, Halt> {
    for ply in 0..PLAYOUT {
        // A time budget holds within a playout too (a long game of huge
        // counts once made one playout outlast it many times over).
        if ply % 8 == 7 && clock.time_up() {
            break;
        }
        // Drawn and made in one call: a move that must be tried to be
        // drawn is made by its trial, not tried and then made.
        if e.play_random(rng)?.is_none() {
            break;
        }
        *made += 1;
    }
    rewards(e, players)
}

/// Each player's reward at the end of a playout.
fn rewards(e: &mut Engine, players: usize) -> Result<Vec<f64>, Halt> {
    let mut r = vec![0.0; players];
    match e.outcome()? {
        Some(o) => {
            // Nobody wins a lost solitaire: no reward for anyone.
            let share = 1.0 / o.winners.len().max(1) as f64;
            for w in o.winners {
                r[w as usize] = share;
            }
        }
        // Cut short: judged by the scores so far.
        None => {
            let s = e.scores()?;
            let best = s.iter().copied().max().unwrap_or(0);
            let n = s.iter().filter(|&&x| x == best).count() as f64;
            for (p, x) in s.iter().enumerate() {
                if *x == best {
                    r[p] = 1.0 / n;
                }
            }
        }
    }
    Ok(r)
}
