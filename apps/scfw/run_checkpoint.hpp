// scfw run: the checkpoint options (--checkpoint, --checkpoint-every, --checkpoint-seconds,
// --resume) around scfw/core/run_checkpoint.hpp. See docs/checkpoint.md.
#pragma once

#include <boost/program_options.hpp>

#include "scfw/core/run_checkpoint.hpp"

namespace scfw_app {

/// The options, for `scfw run --help`.
boost::program_options::options_description checkpoint_options();

/// The request of the options (scfw/core/run_checkpoint.hpp). Throws std::invalid_argument for
/// bad values ("--checkpoint-every: expected an integer >= 1, got 'x'") and for
/// --checkpoint-every/--checkpoint-seconds without --checkpoint.
scfw::CheckpointRequest checkpoint_request(const boost::program_options::variables_map& vm);

}  // namespace scfw_app
