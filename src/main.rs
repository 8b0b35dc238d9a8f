use clap::Parser;

fn main() {
    let cli = mancala::cli::Cli::parse();
    std::process::exit(mancala::cli::run(cli));
}
