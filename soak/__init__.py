"""The soak (issue 19, item 17): production's processes under restart loops, a steady load of enrollments from
several channels, SIGKILLs and a carrier outage; then every accepted line, charge and e-mail is counted, to
prove nothing was lost or done twice and every stuck line healed by itself. `python -m soak --help`."""
