// Express 4 is installed under the alias `express4` beside Express 5; @types/express describes
// the members these tests use in both.
declare module 'express4' {
  import express from 'express';
  export default express;
}
