// The JSON argument of a script: argv[2], or standard input when there is none (for specs
// larger than the command line allows).
export async function readSpec() {
  if (process.argv[2] !== undefined) return JSON.parse(process.argv[2]);
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}
