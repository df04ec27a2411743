# Sourced by the bench scripts that measure one binary over several builds: which binary ran
# (checked again at the end: a rebuild during the run would mix two) and the machine's load
# before and after. `bin` names the binary.

# The binary's hash and time.
bin_id() { printf '%s, %s' "$(sha256sum "$bin" | cut -c1-12)" "$(date -r "$bin" '+%F %T')"; }

# Says the start on standard error, and notes the load and the binary.
run_start() {
  echo "start: $(nproc) cores, load: $(uptime)" >&2
  load_before=$(uptime)
  bin_before=$(bin_id)
}

# Prints the binary, a warning when it changed during the run, and the loads.
run_facts() {
  echo "binary: $bin (sha256 $bin_before)"
  local bin_after
  bin_after=$(bin_id)
  [ "$bin_after" = "$bin_before" ] || echo "WARNING: $bin changed during the run (now sha256 $bin_after): the builds ran different binaries"
  echo "load before: $load_before"
  echo "load after:  $(uptime)"
}
