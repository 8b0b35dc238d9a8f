fn main() {
    let args: Vec<String> = std::env::args().collect();
    match mancala::compile::check_file(&args[1]) {
        Ok(g) => println!("ok: {} with {} sites, {} moves", g.name, g.sites.len(), g.moves.len()),
        Err(f) => eprint!("{}", f.render(false)),
    }
}
