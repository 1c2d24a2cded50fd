"""Running the games: what turns a command into rounds played and written (runs, tournaments,
sweeps, summary runs, Dask, replaying a dataset's round) and what measures them (``fudasim
bench``). Above the games (it asks the registry for them), below the command line and analysis.
"""
