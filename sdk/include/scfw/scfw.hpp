// scfw SDK: everything a plugin author includes.
#pragma once

#include "scfw/atom.hpp"
#include "scfw/error.hpp"
#include "scfw/jacobian.hpp"
#include "scfw/memory.hpp"
#include "scfw/model.hpp"
#include "scfw/params.hpp"
#include "scfw/plugin.hpp"
#include "scfw/registrar.hpp"
#include "scfw/roles.hpp"
#include "scfw/state.hpp"
#include "scfw/types.hpp"
