fn main() -> std::process::ExitCode {
    brigade::cli::main()
}
