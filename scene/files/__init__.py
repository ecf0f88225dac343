"""Files read and written for a person: scene files (read, checked, written back), traces, PNG images, the sizes and
ranges refused, and the rule that every output is written whole or not at all."""
