// Tests of the Transfers module: downloads, uploads, the scheduler and durability.
