/**
 * A fault that is not the model's (a checkout, a set-up, a binary that cannot start, a verifier crash):
 * the outcome says nothing about the agent. `transient` faults are worth retrying; a wrong set-up or a
 * missing base revision is not.
 */
export class InfraFault extends Error {
  constructor(
    message: string,
    readonly transient: boolean = true,
  ) {
    super(message);
    this.name = "InfraFault";
  }
}
