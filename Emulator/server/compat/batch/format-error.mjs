// A batch body that cannot be decoded. The handler answers it with 400 and the message; nothing is applied.
export class BatchFormatError extends Error {
  constructor(message) {
    super(message);
    this.name = "BatchFormatError";
  }
}
