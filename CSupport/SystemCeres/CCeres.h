/* Empty on purpose: the module exists for its pkg-config flags (see module.modulemap). */
